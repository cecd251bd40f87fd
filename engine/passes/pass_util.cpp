#include "passes/pass_util.h"

#include <algorithm>
#include <unordered_set>

#include "catalog/op_registry.h"
#include "ir/verify.h"

namespace onyx::passes {

namespace {

void collectGraphs(Graph& graph, std::vector<Graph*>& out) {
  out.push_back(&graph);
  for (Node* node : graph.nodes())
    for (Graph* body : node->subgraphs()) collectGraphs(*body, out);
}

const Graph& rootOf(const Graph& graph) {
  const Graph* root = &graph;
  while (root->parent()) root = root->parent();
  return *root;
}

// Looks at the bodies only (Graph::bodyHolders), not every node: fresh names stay cheap on long graphs.
bool definesName(const Graph& graph, const std::string& name) {
  if (graph.findValue(name)) return true;
  for (const auto& [id, node] : graph.bodyHolders())
    for (Graph* body : node->subgraphs())
      if (definesName(*body, name)) return true;
  return false;
}

template <class T>
std::string freshName(const std::string& base, T taken) {
  if (!taken(base)) return base;
  for (int suffix = 1;; ++suffix) {
    std::string name = base + "_" + std::to_string(suffix);
    if (!taken(name)) return name;
  }
}

}  // namespace

std::vector<Graph*> allGraphs(Model& model, FunctionBodies functions) {
  std::vector<Graph*> graphs;
  collectGraphs(model.graph(), graphs);
  if (functions == FunctionBodies::Skip) return graphs;
  for (const auto& function : model.functions)
    if (function->body && function->domain != kFusedDomain) collectGraphs(*function->body, graphs);
  return graphs;
}

std::vector<Node*> orderedNodes(const Graph& graph) {
  auto order = topologicalOrder(graph);
  if (order) return std::move(*order);
  std::vector<Node*> stored;
  for (Node* node : graph.nodes()) stored.push_back(node);
  return stored;
}

const Function* enclosingFunction(const Model& model, const Graph& graph) {
  const Graph& root = rootOf(graph);
  for (const auto& function : model.functions)
    if (function->body.get() == &root) return function.get();
  return nullptr;
}

bool isStandardDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml";
}

bool isKnownContribOp(const Node& node) {
  return node.domain() == "com.microsoft" && opRegistry().find(node.domain(), node.opType()) != nullptr;
}

bool isNondeterministic(const Node& node) {
  static const std::unordered_set<std::string> random = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"};
  if (isKnownContribOp(node)) return false;
  return !isStandardDomain(node.domain()) || random.count(node.opType()) > 0;
}

const Attribute* referenceAttribute(const Node& node) {
  for (const Attribute& attribute : node.attributes())
    if (attribute.isReference()) return &attribute;
  return nullptr;
}

bool isOp(const Node* node, std::string_view op) {
  return node && node->opType() == op && (node->domain().empty() || node->domain() == "ai.onnx") &&
         !referenceAttribute(*node);
}

Node* producerOf(const Value* value, std::string_view op) {
  Node* producer = value ? value->producer() : nullptr;
  return isOp(producer, op) ? producer : nullptr;
}

bool isGraphOutput(const Value* value) {
  return value && std::any_of(value->uses().begin(), value->uses().end(),
                              [](const Use& use) { return use.graphOutput != nullptr; });
}

Node* soleConsumer(const Value* value) {
  if (!value || value->uses().size() != 1) return nullptr;
  return value->uses()[0].node;
}

Value* otherOperand(const Node* node, const Value* known) {
  if (!node || node->inputCount() != 2) return nullptr;
  if (node->input(0) == known) return node->input(1);
  if (node->input(1) == known) return node->input(0);
  return nullptr;
}

std::optional<std::vector<int64_t>> normalizeAxes(std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

std::string freshValueName(const Graph& graph, const std::string& base) {
  const Graph& root = rootOf(graph);
  return freshName(base, [&](const std::string& name) { return definesName(root, name); });
}

std::string freshNodeName(const Graph& graph, const std::string& base) {
  return freshName(base, [&](const std::string& name) { return graph.hasNodeNamed(name); });
}

std::string valueRef(const Value* value) {
  return value ? "%" + value->name() : "%<absent>";
}

std::optional<std::string> whyNotReplaceable(const Node& node, const std::vector<Value*>& replacements) {
  std::vector<const Value*> renamed;
  for (size_t i = 0; i < node.outputCount() && i < replacements.size(); ++i) {
    const Value* output = node.output(i);
    const Value* replacement = replacements[i];
    if (!output || !replacement || !isGraphOutput(output)) continue;
    if (replacement->graph() != output->graph())
      return "graph output " + valueRef(output) + " would be replaced by " + valueRef(replacement) +
             " of an enclosing graph";
    if (replacement->isGraphInput())
      return "graph output " + valueRef(output) + " would be renamed to graph input " + valueRef(replacement);
    if (isGraphOutput(replacement))
      return "both " + valueRef(output) + " and " + valueRef(replacement) + " are graph outputs";
    if (std::find(renamed.begin(), renamed.end(), replacement) != renamed.end())
      return "two graph outputs of the node would become the same value " + valueRef(replacement);
    renamed.push_back(replacement);
  }
  return std::nullopt;
}

void eraseNode(Rewriter& rewriter, Node* node) {
  for (Value* output : node->outputs())
    if (output && output->hasValueInfo()) rewriter.setValueInfo(output, false);
  rewriter.removeNode(node);
}

void removeIfUnused(Rewriter& rewriter, const std::vector<Node*>& nodes) {
  for (Node* node : nodes) {
    if (!node || !node->graph()) continue;
    bool used = false;
    for (Value* output : node->outputs()) used = used || (output && !output->uses().empty());
    if (used) continue;
    std::vector<Value*> inputs = node->inputs();
    Graph& graph = *node->graph();
    eraseNode(rewriter, node);
    for (Value* input : inputs) {
      if (input && input->isInitializer() && !input->isGraphInput() && input->uses().empty() &&
          input->graph() == &graph)
        rewriter.removeValue(input);
    }
  }
}

void replaceNode(Rewriter& rewriter, Node* node, const std::vector<Value*>& replacements,
                 const std::vector<Node*>& alsoRemove) {
  std::vector<std::pair<Value*, std::string>> renames;
  for (size_t i = 0; i < node->outputCount() && i < replacements.size(); ++i) {
    Value* output = node->output(i);
    Value* replacement = replacements[i];
    if (!output || !replacement) continue;
    if (isGraphOutput(output)) {
      renames.push_back({replacement, output->name()});
      // The graph's interface keeps the output's declared type too.
      if (!output->type().isNone() && replacement->type() != output->type())
        rewriter.setType(replacement, output->type());
      // The replacement's own value_info (if any) would now describe the output's name.
      if (replacement->hasValueInfo() && output->hasValueInfo()) rewriter.setValueInfo(replacement, false);
    }
    rewriter.replaceAllUsesWith(output, replacement);
  }
  std::vector<Node*> dead = {node};
  for (Node* other : alsoRemove)
    if (other != node) dead.push_back(other);
  removeIfUnused(rewriter, dead);
  for (auto& [value, name] : renames)
    if (!value->graph()->findValue(name)) rewriter.renameValue(value, name);
}

}  // namespace onyx::passes
