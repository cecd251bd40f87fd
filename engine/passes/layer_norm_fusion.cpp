// Layer normalization as exporters spell it over the trailing axes:
//   d = x - ReduceMean(x); y = d / Sqrt(ReduceMean(d ^ 2) + eps) * gamma + beta
// becomes LayerNormalization(x, gamma, beta, axis, epsilon), which exists from opset 17.
#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

std::optional<std::vector<int64_t>> reduceAxes(const Node& reduce) {
  if (auto attribute = reduce.attrInts("axes")) return attribute;
  if (reduce.inputCount() > 1 && reduce.input(1)) return constantInts(reduce.input(1));
  return std::nullopt;
}

Node* consumerOp(const Value* value, std::string_view op) {
  Node* node = soleConsumer(value);
  return isOp(node, op) ? node : nullptr;
}

// Dims of a constant operand when they equal `normalized` (the trailing dims of x).
bool matchesNormalized(const Value* value, const std::vector<int64_t>& normalized) {
  auto tensor = constantValue(value);
  return tensor && tensor->dims() == normalized;
}

}  // namespace

std::span<const std::string_view> LayerNormFusion::rootOps() const {
  static constexpr std::string_view kOps[] = {"ReduceMean"};
  return kOps;
}

PatternResult LayerNormFusion::matchAndRewrite(Node& mean, PatternContext& context) {
  using Result = PatternResult;
  Value* x = mean.input(0);
  Node* sub = consumerOp(mean.output(0), "Sub");
  if (!sub || sub->input(0) != x || sub->input(1) != mean.output(0)) return Result::noMatch();
  const auto& subUses = sub->output(0)->uses();
  if (subUses.size() != 2) return Result::noMatch();
  Node* pow = nullptr;
  Node* div = nullptr;
  for (const Use& use : subUses) {
    if (isOp(use.node, "Pow") && use.index == 0) pow = use.node;
    if (isOp(use.node, "Div") && use.index == 0) div = use.node;
  }
  if (!pow || !div || constantScalar(pow->input(1)) != std::optional<double>(2.0)) return Result::noMatch();
  Node* variance = consumerOp(pow->output(0), "ReduceMean");
  Node* addEps = variance ? consumerOp(variance->output(0), "Add") : nullptr;
  Node* sqrt = addEps ? consumerOp(addEps->output(0), "Sqrt") : nullptr;
  if (!sqrt || div->input(1) != sqrt->output(0) || sqrt->output(0)->uses().size() != 1)
    return Result::noMatch();
  auto epsilon = constantScalar(otherOperand(addEps, variance->output(0)));
  if (!epsilon) return Result::noMatch();
  Node* scale = consumerOp(div->output(0), "Mul");
  Node* shift = scale ? consumerOp(scale->output(0), "Add") : nullptr;
  if (!shift)
    return Result::skipped("the normalization has no constant scale (Mul) and shift (Add) after it", div);
  std::vector<Node*> nodes = {shift, scale, div, sqrt, addEps, variance, pow, sub, &mean};
  for (const Node* node : nodes)
    if (!context.inScope(node) || node->graph() != &context.graph()) return Result::noMatch();
  auto meanAxes = reduceAxes(mean);
  auto varianceAxes = reduceAxes(*variance);
  auto shape = context.shapeOf(x);
  if (!meanAxes || !varianceAxes || !shape)
    return Result::skipped("the reduced axes or the rank of '" + x->name() + "' are unknown", shift);
  int64_t rank = int64_t(shape->size());
  auto axes = normalizeAxes(*meanAxes, rank);
  auto axes2 = normalizeAxes(*varianceAxes, rank);
  bool trailing = axes && axes2 && *axes == *axes2 && !axes->empty();
  for (size_t i = 0; trailing && i < axes->size(); ++i)
    trailing = (*axes)[i] == rank - int64_t(axes->size()) + int64_t(i);
  if (!trailing || mean.attrInt("keepdims", 1) != 1 || variance->attrInt("keepdims", 1) != 1)
    return Result::skipped("the means are not over the same trailing axes with keepdims=1", shift);
  int64_t axis = (*axes)[0];
  std::vector<int64_t> normalized;
  for (int64_t d = axis; d < rank; ++d) normalized.push_back((*shape)[size_t(d)].value().value_or(-1));
  Value* gamma = otherOperand(scale, div->output(0));
  Value* beta = otherOperand(shift, scale->output(0));
  if (!matchesNormalized(gamma, normalized) || !matchesNormalized(beta, normalized))
    return Result::skipped("scale and shift are not constants shaped like the normalized dims", shift);
  DataType type = context.elemTypeOf(x);
  if (type != DataType::Float && type != DataType::Double && type != DataType::Float16)
    return Result::skipped("element type of '" + x->name() + "' is not a float type", shift);
  for (const Node* node : {&mean, pow, variance, addEps, div, scale})
    if (node->output(0)->uses().size() != 1)
      return Result::skipped("an intermediate value of the normalization has other uses", shift);
  int64_t opset = context.opsetVersion("");
  if (opset < 17)
    return Result::skipped("LayerNormalization needs opset 17; the model imports " + std::to_string(opset),
                           shift);
  Node* layerNorm =
      context.addNode("LayerNormalization", {x, gamma, beta},
                      shift->name().empty() ? "LayerNormalization" : shift->name() + "_layernorm",
                      shift->output(0)->name() + "_layernorm", shift,
                      {Attribute::ofInt("axis", axis), Attribute::ofFloat("epsilon", float(*epsilon))});
  replaceNode(context.rewriter(), shift, {layerNorm->output(0)}, nodes);
  return Result::rewritten("layer-norms-fused");
}

}  // namespace onyx::passes
