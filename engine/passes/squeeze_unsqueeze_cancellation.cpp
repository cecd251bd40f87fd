// Unsqueeze(Squeeze(x, a), a) is x, and so is Squeeze(Unsqueeze(x, a), a): the dims one op removes are the
// dims the other inserts. Axes come from the attribute (before opset 13) or a constant input (13+).
#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

std::optional<std::vector<int64_t>> axesOf(const Node& node) {
  if (auto attribute = node.attrInts("axes")) return attribute;
  if (node.inputCount() > 1 && node.input(1)) return constantInts(node.input(1));
  return std::nullopt;
}

}  // namespace

std::span<const std::string_view> SqueezeUnsqueezeCancellation::rootOps() const {
  static constexpr std::string_view kOps[] = {"Squeeze", "Unsqueeze"};
  return kOps;
}

PatternResult SqueezeUnsqueezeCancellation::matchAndRewrite(Node& outer, PatternContext& context) {
  bool squeezeThenUnsqueeze = outer.opType() == "Unsqueeze";
  Node* inner = producerOf(outer.input(0), squeezeThenUnsqueeze ? "Squeeze" : "Unsqueeze");
  if (!inner || !context.inScope(inner)) return PatternResult::noMatch();
  Value* x = inner->input(0);
  auto innerAxes = axesOf(*inner);
  auto outerAxes = axesOf(outer);
  if (!innerAxes || !outerAxes)
    return PatternResult::skipped("axes of " + inner->opType() + " or " + outer.opType() +
                                  " are not constant");
  // Both axis lists count in the rank of the tensor with the dims present: x for Squeeze→Unsqueeze, the
  // Unsqueeze's output for Unsqueeze→Squeeze.
  auto shape = context.shapeOf(x);
  bool negative = false;
  for (int64_t a : *innerAxes) negative = negative || a < 0;
  for (int64_t a : *outerAxes) negative = negative || a < 0;
  int64_t rank = 1 << 20;  // without the rank, non-negative axes compare as they are
  if (shape)
    rank = int64_t(shape->size()) + (squeezeThenUnsqueeze ? 0 : int64_t(innerAxes->size()));
  else if (negative)
    return PatternResult::skipped("rank of '" + x->name() + "' unknown and the axes are negative");
  auto a = normalizeAxes(*innerAxes, rank);
  auto b = normalizeAxes(*outerAxes, rank);
  if (!a || !b || *a != *b) return PatternResult::skipped("the axes differ, so the pair is not an identity");
  if (auto reason = whyNotReplaceable(outer, {x}))
    return PatternResult::skipped("the pair's result " + valueRef(outer.output(0)) +
                                  " is a graph output: " + *reason);
  replaceNode(context.rewriter(), &outer, {x}, {inner});
  return PatternResult::rewritten("squeeze-unsqueeze-pairs-removed");
}

}  // namespace onyx::passes
