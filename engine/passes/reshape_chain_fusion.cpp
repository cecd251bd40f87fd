// Reshape(Reshape(x, s1), s2) and Reshape(Flatten(x), s2) are Reshape(x, s2): a Reshape only reads its
// input's element count and order, which the first op keeps. Not when s2 holds a 0 (copy the dim of the
// input, with allowzero=0), since the input then changes; s2 may be symbolic when inference knows its
// elements.
#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

// Whether the target shape provably has no 0 entry (or allowzero=1 makes 0 a real size).
std::optional<std::string> zeroCopyRisk(PatternContext& context, const Node& reshape) {
  if (reshape.attrInt("allowzero", 0) == 1) return std::nullopt;
  const Value* target = reshape.input(1);
  if (auto ints = constantInts(target)) {
    for (int64_t v : *ints)
      if (v == 0) return "target shape has a 0 entry, which copies a dim of the intermediate";
    return std::nullopt;
  }
  const InferredValue* inferred = context.pass().shapes().find(target);
  if (!inferred || !inferred->value)
    return "elements of target shape '" + (target ? target->name() : std::string()) + "' unknown";
  for (const Dim& d : *inferred->value) {
    if (d.isUnknown()) return "an element of target shape '" + target->name() + "' is unknown";
    if (d.value() && *d.value() == 0)
      return "target shape has a 0 entry, which copies a dim of the intermediate";
  }
  return std::nullopt;
}

}  // namespace

std::span<const std::string_view> ReshapeChainFusion::rootOps() const {
  static constexpr std::string_view kOps[] = {"Reshape"};
  return kOps;
}

PatternResult ReshapeChainFusion::matchAndRewrite(Node& second, PatternContext& context) {
  Node* first = producerOf(second.input(0), "Reshape");
  if (!first) first = producerOf(second.input(0), "Flatten");
  if (!first || !context.inScope(first)) return PatternResult::noMatch();
  if (auto risk = zeroCopyRisk(context, second)) return PatternResult::skipped(*risk);
  bool firstDies = first->output(0)->uses().size() == 1;
  Rewriter& rw = context.rewriter();
  rw.setInput(&second, 0, first->input(0));
  removeIfUnused(rw, {first});
  // A first op with other readers stays; the second no longer waits for it.
  return PatternResult::rewritten(firstDies ? "reshapes-merged" : "reshapes-rewired");
}

}  // namespace onyx::passes
