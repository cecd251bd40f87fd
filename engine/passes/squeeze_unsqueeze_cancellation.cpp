// Unsqueeze(Squeeze(x, a), a) is x, and so is Squeeze(Unsqueeze(x, a), a): the dims one op removes are the
// dims the other inserts. Axes come from the attribute (before opset 13) or a constant input (13+).
#include "passes/all_passes.h"
#include "passes/rewrite_helpers.h"

namespace onyx::passes {

namespace {

std::optional<std::vector<int64_t>> axesOf(const Node& node) {
  if (auto attribute = node.attrInts("axes")) return attribute;
  if (node.inputCount() > 1 && node.input(1)) return constantInts(node.input(1));
  return std::nullopt;
}

}  // namespace

Expected<bool> SqueezeUnsqueezeCancellation::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* outer = graph.findNode(id);
    if (!outer || !context.inScope(*outer)) continue;
    bool squeezeThenUnsqueeze = isOp(outer, "Unsqueeze");
    if (!squeezeThenUnsqueeze && !isOp(outer, "Squeeze")) continue;
    Node* inner = producerOf(outer->input(0), squeezeThenUnsqueeze ? "Squeeze" : "Unsqueeze");
    if (!inner || !context.inScope(*inner)) continue;
    Value* x = inner->input(0);
    auto innerAxes = axesOf(*inner);
    auto outerAxes = axesOf(*outer);
    if (!innerAxes || !outerAxes) {
      context.skip(*outer, "axes of " + inner->opType() + " or " + outer->opType() + " are not constant");
      continue;
    }
    // Both axis lists count in the rank of the tensor with the dims present: x for Squeeze→Unsqueeze, the
    // Unsqueeze's output for Unsqueeze→Squeeze.
    auto shape = shapeOf(context, x);
    bool negative = false;
    for (int64_t a : *innerAxes) negative = negative || a < 0;
    for (int64_t a : *outerAxes) negative = negative || a < 0;
    int64_t rank = 0;
    if (shape) {
      rank = int64_t(shape->size()) + (squeezeThenUnsqueeze ? 0 : int64_t(innerAxes->size()));
    } else if (negative) {
      context.skip(*outer, "rank of '" + x->name() + "' unknown and the axes are negative");
      continue;
    } else {
      rank = 1 << 20;
    }
    auto a = normalizeAxes(*innerAxes, rank);
    auto b = normalizeAxes(*outerAxes, rank);
    if (!a || !b || *a != *b) {
      context.skip(*outer, "the axes differ, so the pair is not an identity");
      continue;
    }
    std::string blocker = replacementBlocker(outer->output(0), x);
    if (!blocker.empty()) {
      context.skip(*outer, blocker);
      continue;
    }
    replaceResult(rw, outer->output(0), x, {outer, inner});
    context.count("squeeze-unsqueeze-pairs-removed");
    changed = true;
  }
  return changed;
}

}  // namespace onyx::passes
