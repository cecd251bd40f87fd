// Layer normalization as exporters spell it over the trailing axes:
//   d = x - ReduceMean(x); y = d / Sqrt(ReduceMean(d ^ 2) + eps) * gamma + beta
// becomes LayerNormalization(x, gamma, beta, axis, epsilon), which exists from opset 17.
#include "passes/all_passes.h"
#include "passes/rewrite_helpers.h"

namespace onyx::passes {

namespace {

std::optional<std::vector<int64_t>> reduceAxes(const Node& reduce) {
  if (auto attribute = reduce.attrInts("axes")) return attribute;
  if (reduce.inputCount() > 1 && reduce.input(1)) return constantInts(reduce.input(1));
  return std::nullopt;
}

Value* otherOperand(const Node* node, const Value* known) {
  if (!node || node->inputCount() != 2) return nullptr;
  if (node->input(0) == known) return node->input(1);
  if (node->input(1) == known) return node->input(0);
  return nullptr;
}

Node* consumerOp(const Value* value, std::string_view op) {
  Node* node = soleConsumer(value);
  return isOp(node, op) ? node : nullptr;
}

// Dims of a constant operand when they equal `normalized` (the trailing dims of x).
bool matchesNormalized(const Value* value, const std::vector<int64_t>& normalized) {
  const Tensor* tensor = constantOf(value);
  return tensor && tensor->dims() == normalized;
}

}  // namespace

Expected<bool> LayerNormFusion::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  int64_t opset = context.model().opsetVersion("");
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* mean = graph.findNode(id);
    if (!isOp(mean, "ReduceMean") || !context.inScope(*mean)) continue;
    Value* x = mean->input(0);
    Node* sub = consumerOp(mean->output(0), "Sub");
    if (!sub || sub->input(0) != x || sub->input(1) != mean->output(0)) continue;
    const auto& subUses = sub->output(0)->uses();
    if (subUses.size() != 2) continue;
    Node* pow = nullptr;
    Node* div = nullptr;
    for (const Use& use : subUses) {
      if (isOp(use.node, "Pow") && use.index == 0) pow = use.node;
      if (isOp(use.node, "Div") && use.index == 0) div = use.node;
    }
    if (!pow || !div || constantScalar(pow->input(1)) != std::optional<double>(2.0)) continue;
    Node* variance = consumerOp(pow->output(0), "ReduceMean");
    Node* addEps = variance ? consumerOp(variance->output(0), "Add") : nullptr;
    Node* sqrt = addEps ? consumerOp(addEps->output(0), "Sqrt") : nullptr;
    if (!sqrt || div->input(1) != sqrt->output(0) || sqrt->output(0)->uses().size() != 1) continue;
    auto epsilon = constantScalar(otherOperand(addEps, variance->output(0)));
    if (!epsilon) continue;
    Node* scale = consumerOp(div->output(0), "Mul");
    Node* shift = scale ? consumerOp(scale->output(0), "Add") : nullptr;
    std::vector<Node*> nodes = {shift, scale, div, sqrt, addEps, variance, pow, sub, mean};
    if (!shift) {
      context.skip(*div, "the normalization has no constant scale (Mul) and shift (Add) after it");
      continue;
    }
    bool inScope = true;
    for (const Node* node : nodes) inScope = inScope && context.inScope(*node);
    if (!inScope) continue;
    auto meanAxes = reduceAxes(*mean);
    auto varianceAxes = reduceAxes(*variance);
    auto shape = shapeOf(context, x);
    if (!meanAxes || !varianceAxes || !shape) {
      context.skip(*shift, "the reduced axes or the rank of '" + x->name() + "' are unknown");
      continue;
    }
    int64_t rank = int64_t(shape->size());
    auto axes = normalizeAxes(*meanAxes, rank);
    auto axes2 = normalizeAxes(*varianceAxes, rank);
    bool trailing = axes && axes2 && *axes == *axes2 && !axes->empty();
    for (size_t i = 0; trailing && i < axes->size(); ++i)
      trailing = (*axes)[i] == rank - int64_t(axes->size()) + int64_t(i);
    if (!trailing || mean->attrInt("keepdims", 1) != 1 || variance->attrInt("keepdims", 1) != 1) {
      context.skip(*shift, "the means are not over the same trailing axes with keepdims=1");
      continue;
    }
    int64_t axis = (*axes)[0];
    std::vector<int64_t> normalized;
    for (int64_t d = axis; d < rank; ++d) normalized.push_back((*shape)[size_t(d)].value().value_or(-1));
    Value* gamma = otherOperand(scale, div->output(0));
    Value* beta = otherOperand(shift, scale->output(0));
    if (!matchesNormalized(gamma, normalized) || !matchesNormalized(beta, normalized)) {
      context.skip(*shift, "scale and shift are not constants shaped like the normalized dims");
      continue;
    }
    DataType type = elemTypeOf(context, x);
    if (type != DataType::Float && type != DataType::Double && type != DataType::Float16) {
      context.skip(*shift, "element type of '" + x->name() + "' is not a float type");
      continue;
    }
    bool singleUse = true;
    for (const Node* node : {mean, pow, variance, addEps, div, scale})
      singleUse = singleUse && node->output(0)->uses().size() == 1;
    if (!singleUse) {
      context.skip(*shift, "an intermediate value of the normalization has other uses");
      continue;
    }
    if (opset < 17) {
      context.skip(*shift, "LayerNormalization needs opset 17; the model imports " + std::to_string(opset));
      continue;
    }
    Node* layerNorm = rw.addNode(
        graph,
        {.opType = "LayerNormalization",
         .name = freshNodeName(graph,
                               shift->name().empty() ? "LayerNormalization" : shift->name() + "_layernorm"),
         .inputs = {x, gamma, beta},
         .outputNames = {freshName(graph, shift->output(0)->name() + "_layernorm")},
         .attributes = {Attribute::ofInt("axis", axis), Attribute::ofFloat("epsilon", float(*epsilon))}},
        shift);
    replaceResult(rw, shift->output(0), layerNorm->output(0), nodes);
    context.count("layer-norms-fused");
    changed = true;
  }
  return changed;
}

}  // namespace onyx::passes
