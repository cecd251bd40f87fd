// dead-code-elimination: a node none of whose outputs is used (by a node, a body or a graph output) computes
// nothing anyone sees. Ops of other domains may have effects we cannot see, so they stay and say so; the
// com.microsoft ops Onyx implements are pure (isKnownContribOp) and go like standard ones.
#include <algorithm>

#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

bool isUnused(const Node& node) {
  for (size_t i = 0; i < node.outputCount(); ++i)
    if (const Value* output = node.output(i); output && !output->uses().empty()) return false;
  return true;
}

}  // namespace

Expected<bool> DeadCodeElimination::run(PassContext& context) {
  Rewriter& rewriter = context.rewriter();
  bool changed = false;
  // Bodies first: a dead node in a body may be the only reader of an outer value. Function bodies too: a
  // body's outputs are uses, so only what no output depends on goes.
  std::vector<Graph*> graphs = allGraphs(context.model(), FunctionBodies::Include);
  for (auto graph = graphs.rbegin(); graph != graphs.rend(); ++graph) {
    std::vector<Node*> order = orderedNodes(**graph);
    // Consumers before producers: removing a consumer can leave its producer unused.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* node = *it;
      if (!isUnused(*node) || !context.inScope(*node)) continue;
      if (!isStandardDomain(node->domain()) && !isKnownContribOp(*node) &&
          !context.model().findFunction(node->domain(), node->opType())) {
        context.skip(*node, "op of domain '" + node->domain() + "' may have side effects");
        continue;
      }
      eraseNode(rewriter, node);
      context.count("nodes-removed");
      changed = true;
    }
    if (!context.scope().empty())
      continue;  // initializers belong to no scope: only whole-model runs drop them
    std::vector<Value*> unused;
    for (Value* value : (*graph)->initializers())
      if (value->uses().empty() && !value->isGraphInput()) unused.push_back(value);
    if (unused.empty()) continue;
    rewriter.removeValues(unused);
    context.count("initializers-removed", int64_t(unused.size()));
    changed = true;
  }
  return changed;
}

}  // namespace onyx::passes
