// PFVM's sum_to elimination, as ONNX graphs spell it: a reduction whose input already has the target shape
// changes nothing. Two forms:
//  - ReduceSum/Mean/Max/Min/Prod with keepdims=1 over axes that all have size 1 in its input;
//  - Reshape(reduction(x), s) whose output shape equals the shape of x (as inferred, symbols included): the
//    element count is the same, so the reduced axes had size 1 and the elements are x's, in order.
#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

bool isIdentityReduction(const Node* node) {
  return isOp(node, "ReduceSum") || isOp(node, "ReduceMean") || isOp(node, "ReduceMax") ||
         isOp(node, "ReduceMin") || isOp(node, "ReduceProd");
}

std::optional<std::vector<int64_t>> reductionAxes(const Node& node, bool& absent) {
  absent = false;
  if (auto attribute = node.attrInts("axes")) return attribute;
  if (node.inputCount() > 1 && node.input(1)) return constantInts(node.input(1));
  absent = true;
  return std::vector<int64_t>{};
}

bool sameShape(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].isUnknown() || b[i].isUnknown() || !(a[i].expr() == b[i].expr())) return false;
  return true;
}

// Why the reduction is not an identity, or empty when it is. `candidate` is false when it provably reduces
// something (not worth a skip reason).
std::string keepdimsReductionBlocker(PatternContext& context, const Node& node, bool& candidate) {
  candidate = false;
  if (node.attrInt("keepdims", 1) != 1) return "keepdims=0 drops the reduced axes";
  bool absent = false;
  auto axes = reductionAxes(node, absent);
  if (!axes) return "the axes are not constant";
  auto shape = context.shapeOf(node.input(0));
  candidate = true;
  if (!shape) return "shape of '" + node.input(0)->name() + "' unknown";
  if (absent) {
    if (node.attrInt("noop_with_empty_axes", 0) == 1) return {};
    axes = std::vector<int64_t>();
    for (size_t d = 0; d < shape->size(); ++d) axes->push_back(int64_t(d));
  }
  auto normalized = normalizeAxes(*axes, int64_t(shape->size()));
  if (!normalized) return "an axis is out of range";
  for (int64_t axis : *normalized) {
    const Dim& d = (*shape)[size_t(axis)];
    if (d.value() == std::optional<int64_t>(1)) continue;
    candidate = !d.isStatic();
    return "reduced axis " + std::to_string(axis) + " of '" + node.input(0)->name() + "' has size " +
           d.toString();
  }
  return {};
}

}  // namespace

std::span<const std::string_view> BroadcastReductionElimination::rootOps() const {
  static constexpr std::string_view kOps[] = {"Reshape",   "ReduceSum", "ReduceMean",
                                              "ReduceMax", "ReduceMin", "ReduceProd"};
  return kOps;
}

PatternResult BroadcastReductionElimination::matchAndRewrite(Node& node, PatternContext& context) {
  if (node.opType() == "Reshape") {
    Node* reduce = node.input(0) ? node.input(0)->producer() : nullptr;
    if (!isIdentityReduction(reduce) || !context.inScope(reduce)) return PatternResult::noMatch();
    Value* x = reduce->input(0);
    auto in = context.shapeOf(x);
    auto out = context.shapeOf(node.output(0));
    if (!in || !out)
      return PatternResult::skipped("the shape of '" + x->name() + "' or '" + node.output(0)->name() +
                                    "' is unknown");
    // A real reduction (or not provably none) is not a candidate.
    if (!sameShape(*in, *out)) return PatternResult::noMatch();
    if (auto reason = whyNotReplaceable(node, {x}))
      return PatternResult::skipped("the result " + valueRef(node.output(0)) +
                                    " is a graph output: " + *reason);
    replaceNode(context.rewriter(), &node, {x}, {reduce});
    return PatternResult::rewritten("sum-to-reshapes-removed");
  }
  bool candidate = false;
  std::string blocker = keepdimsReductionBlocker(context, node, candidate);
  if (blocker.empty()) {
    if (auto reason = whyNotReplaceable(node, {node.input(0)}))
      blocker = "the result " + valueRef(node.output(0)) + " is a graph output: " + *reason;
  }
  if (!blocker.empty()) {
    // A Reshape consuming it is the other form, judged there.
    Node* consumer = soleConsumer(node.output(0));
    if (candidate && !isOp(consumer, "Reshape")) return PatternResult::skipped(blocker);
    return PatternResult::noMatch();
  }
  replaceNode(context.rewriter(), &node, {node.input(0)});
  return PatternResult::rewritten("reductions-removed");
}

}  // namespace onyx::passes
