// Shape functions of activations: elementwise, or over an axis with the input's shape.
#include "ops/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

Expected<void> inferBroadcastPair(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const size_t inputs[] = {0, 1};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, std::move(*shape));
  return {};
}

// PRelu's slope broadcasts to X (unidirectionally): the output has X's shape, checked against the slope.
// Before opset 7 the slope broadcast along the channel axis (a [C] slope for [N, C, ...]).
Expected<void> inferPRelu(ShapeContext& ctx) {
  if (ctx.opset() < 7) return inferSameAsInput0(ctx);
  return inferBroadcastPair(ctx);
}
// SwiGLU: silu(A) * B, elementwise with broadcasting.
Expected<void> inferSwiGLU(ShapeContext& ctx) { return inferBroadcastPair(ctx); }

}  // namespace

void registerActivationOps(OpRegistry& registry) {
  registry.add({"", "Relu", OpCategory::Activation, {1, 6, 13, 14}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Sigmoid", OpCategory::Activation, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Tanh", OpCategory::Activation, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "HardSwish", OpCategory::Activation, {14, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "HardSigmoid", OpCategory::Activation, {1, 6, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "LeakyRelu", OpCategory::Activation, {1, 6, 16}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Elu", OpCategory::Activation, {1, 6, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Selu", OpCategory::Activation, {1, 6, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Celu", OpCategory::Activation, {12, 28}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Softplus", OpCategory::Activation, {1, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Softsign", OpCategory::Activation, {1, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "ThresholdedRelu", OpCategory::Activation, {10, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Gelu", OpCategory::Activation, {20}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Mish", OpCategory::Activation, {18, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Swish", OpCategory::Activation, {24}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Shrink", OpCategory::Activation, {9}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Clip", OpCategory::Activation, {1, 6, 11, 12, 13}, 1, 3, 1, 1, true, inferUnary});
  registry.add({"", "Softmax", OpCategory::Activation, {1, 11, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "LogSoftmax", OpCategory::Activation, {1, 11, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Hardmax", OpCategory::Activation, {1, 11, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "PRelu", OpCategory::Activation, {1, 6, 7, 9, 16}, 2, 2, 1, 1, true, inferPRelu});
  registry.add({"", "SwiGLU", OpCategory::Activation, {28}, 2, 2, 1, 1, false, inferSwiGLU});
}

}  // namespace onyx
