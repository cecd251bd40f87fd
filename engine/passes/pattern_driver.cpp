#include "passes/pattern_driver.h"

#include <algorithm>
#include <memory>

namespace onyx::passes {

PatternResult PatternResult::rewritten(std::string counter, int64_t count) {
  return PatternResult(Kind::Rewritten, std::move(counter), count, nullptr);
}

PatternResult PatternResult::skipped(std::string reason, const Node* at) {
  return PatternResult(Kind::Skipped, std::move(reason), 0, at);
}

PatternContext::PatternContext(PassContext& pass, Graph& graph)
    : pass_(pass), graph_(graph), function_(enclosingFunction(pass.model(), graph)) {}

int64_t PatternContext::opsetVersion(std::string_view domain) const {
  if (function_ && !function_->opsetImports.empty()) {
    for (const OpsetImport& import : function_->opsetImports) {
      bool standard =
          (domain.empty() || domain == "ai.onnx") && (import.domain.empty() || import.domain == "ai.onnx");
      if (standard || import.domain == domain) return import.version;
    }
    return 0;
  }
  return pass_.model().opsetVersion(domain);
}

Node* PatternContext::addNode(std::string opType, std::vector<Value*> inputs, const std::string& nodeName,
                              const std::string& outputBase, Node* before,
                              std::vector<Attribute> attributes) {
  return rewriter().addNode(graph_,
                            {.opType = std::move(opType),
                             .name = freshNodeName(graph_, nodeName),
                             .inputs = std::move(inputs),
                             .outputNames = {freshValueName(graph_, outputBase)},
                             .attributes = std::move(attributes)},
                            before);
}

Value* PatternContext::addConstant(const std::string& base, Tensor tensor, Node* before) {
  std::string name = freshValueName(graph_, base);
  if (!function_) return rewriter().addInitializer(graph_, name, std::move(tensor));
  // FunctionProto has no initializers: a function body holds its constants in Constant nodes.
  tensor.setName(name);
  Node* constant = rewriter().addNode(graph_,
                                      {.opType = "Constant",
                                       .name = freshNodeName(graph_, name),
                                       .outputNames = {name},
                                       .attributes = {Attribute::ofTensor("value", std::move(tensor))}},
                                      before);
  return constant->output(0);
}

bool PatternPass::isRoot(const Node& node) const {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
  auto ops = rootOps();
  return std::find(ops.begin(), ops.end(), node.opType()) != ops.end();
}

// One sweep over `graph` in stored order, then over the bodies of its nodes. Nodes are looked up again by
// id, since an earlier rewrite may have removed them; nodes a rewrite adds are not visited in this sweep.
// Returns whether anything changed.
bool PatternPass::sweep(Graph& graph, PassContext& context, std::vector<PassSkip>& skips) {
  bool changed = false;
  std::vector<NodeId> ids;
  for (const Node* node : graph.nodes()) ids.push_back(node->id());
  PatternContext patternContext(context, graph);
  for (NodeId id : ids) {
    Node* root = graph.findNode(id);
    if (!root || !isRoot(*root) || !context.inScope(*root)) continue;
    if (const Attribute* reference = referenceAttribute(*root)) {
      skips.push_back({root->id(), root->describe(),
                       "attribute '" + reference->name() + "' refers to attribute '" +
                           reference->refAttrName() + "' of the calling function, unknown until the call"});
      continue;
    }
    if (!context.mayRewrite()) {
      context.noteStoppedAtLimit();
      break;
    }
    context.beginRewrite(*root);
    PatternResult result = matchAndRewrite(*root, patternContext);
    context.endRewrite(result.isRewritten());
    if (result.isRewritten()) {
      context.count(result.counter(), result.count());
      changed = true;
    } else if (result.isSkipped()) {
      const Node* at = result.at() ? result.at() : root;
      skips.push_back({at->id(), at->describe(), result.reason()});
    }
  }
  std::vector<Graph*> bodies;
  for (Node* node : graph.nodes())
    for (Graph* body : node->subgraphs()) bodies.push_back(body);
  for (Graph* body : bodies)
    if (context.mayRewrite()) changed = sweep(*body, context, skips) || changed;
  return changed;
}

Expected<bool> PatternPass::run(PassContext& context) {
  bool changed = false;
  int sweeps = std::max(1, maxSweeps());
  for (int round = 0; round < sweeps; ++round) {
    // Only the last sweep's skips are reported: earlier ones may have been rewritten since.
    std::vector<PassSkip> skips;
    bool sweepChanged = sweep(context.model().graph(), context, skips);
    std::vector<std::shared_ptr<Function>> functions = context.model().functions;
    for (const auto& function : functions)
      if (function->body && function->domain != kFusedDomain && context.mayRewrite())
        sweepChanged = sweep(*function->body, context, skips) || sweepChanged;
    changed = changed || sweepChanged;
    if (!sweepChanged || round + 1 == sweeps || context.stoppedAtLimit()) {
      for (PassSkip& skip : skips) context.skip(std::move(skip));
      break;
    }
  }
  return changed;
}

}  // namespace onyx::passes
