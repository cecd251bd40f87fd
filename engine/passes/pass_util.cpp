#include "passes/pass_util.h"

#include <algorithm>
#include <unordered_set>

#include "ir/verify.h"

namespace onyx::passes {

namespace {

void collectGraphs(Graph& graph, std::vector<Graph*>& out) {
  out.push_back(&graph);
  for (Node* node : graph.nodes())
    for (Graph* body : node->subgraphs()) collectGraphs(*body, out);
}

template <class T>
Tensor vectorTensor(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& values) {
  return Tensor::fromValues(dtype, std::move(dims), values);
}

bool definesName(const Graph& graph, const std::string& name) {
  if (graph.findValue(name)) return true;
  for (Node* node : graph.nodes())
    for (Graph* body : node->subgraphs())
      if (definesName(*body, name)) return true;
  return false;
}

}  // namespace

std::vector<Graph*> allGraphs(Model& model) {
  std::vector<Graph*> graphs;
  collectGraphs(model.graph(), graphs);
  return graphs;
}

std::vector<Node*> orderedNodes(const Graph& graph) {
  auto order = topologicalOrder(graph);
  if (order) return std::move(*order);
  std::vector<Node*> stored;
  for (Node* node : graph.nodes()) stored.push_back(node);
  return stored;
}

const Tensor* fixedInitializer(const Value* value) {
  if (!value || value->isGraphInput()) return nullptr;
  return value->initializer();
}

std::optional<Tensor> constantValue(const Value* value) {
  if (!value) return std::nullopt;
  if (const Tensor* tensor = fixedInitializer(value)) return *tensor;
  const Node* node = value->producer();
  if (!node || node->opType() != "Constant" || !isStandardDomain(node->domain()) ||
      node->attributes().size() != 1)
    return std::nullopt;
  const Attribute& a = node->attributes().front();
  if (a.isReference()) return std::nullopt;
  if (a.name() == "value" && a.getTensor()) return *a.getTensor();
  if (a.name() == "value_float" && a.getFloat())
    return vectorTensor(DataType::Float, {}, std::vector<float>{*a.getFloat()});
  if (a.name() == "value_int" && a.getInt())
    return vectorTensor(DataType::Int64, {}, std::vector<int64_t>{*a.getInt()});
  if (a.name() == "value_floats" && a.getFloats())
    return vectorTensor(DataType::Float, {int64_t(a.getFloats()->size())}, *a.getFloats());
  if (a.name() == "value_ints" && a.getInts())
    return vectorTensor(DataType::Int64, {int64_t(a.getInts()->size())}, *a.getInts());
  if (a.name() == "value_string" && a.getString()) return Tensor::strings({}, {*a.getString()});
  if (a.name() == "value_strings" && a.getStrings())
    return Tensor::strings({int64_t(a.getStrings()->size())}, *a.getStrings());
  return std::nullopt;
}

bool isStandardDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml";
}

bool isNondeterministic(const Node& node) {
  static const std::unordered_set<std::string> random = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"};
  return !isStandardDomain(node.domain()) || random.count(node.opType()) > 0;
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

void replaceNode(Rewriter& rewriter, Node* node, const std::vector<Value*>& replacements) {
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
  eraseNode(rewriter, node);
  for (auto& [value, name] : renames) rewriter.renameValue(value, name);
}

std::string uniqueValueName(Model& model, const std::string& base) {
  std::string name = base;
  for (int k = 1; definesName(model.graph(), name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

std::string valueRef(const Value* value) {
  return value ? "%" + value->name() : "%<absent>";
}

}  // namespace onyx::passes
