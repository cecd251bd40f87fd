// Shape functions and schemas of the com.microsoft QLinear* ops that ONNX Runtime's static quantizer leaves
// in QOperator-format models: 8-bit element-wise and pooling ops whose scales and zero points are inputs.
// The output keeps the data input's 8-bit type; unknown dims keep their provenance as for the ai.onnx ops.
#include <algorithm>

#include "catalog/op_registry.h"
#include "ops/nn/nn_shapes.h"
#include "shapes/dim_math.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

constexpr const char* kMs = "com.microsoft";

// QLinearAdd, QLinearMul: A (input 0) and B (input 3) broadcast; C has A's type.
Expected<void> inferQLinearBinary(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 3, 0, elem)) return {};
  const size_t inputs[] = {0, 3};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, std::move(*shape));
  return {};
}

// QLinearWhere: condition (input 0), X (input 1) and Y (input 4) broadcast; Z has X's type.
Expected<void> inferQLinearWhere(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(1);
  for (size_t i : {0, 1, 4})
    if (forwardUnknownRank(ctx, i, 0, elem)) return {};
  const size_t inputs[] = {0, 1, 4};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, std::move(*shape));
  return {};
}

// QLinearReduceMean: the axes attribute's dims reduced (all when absent), kept as 1 with keepdims.
Expected<void> inferQLinearReduceMean(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  const std::vector<int64_t> axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{});
  std::vector<bool> reduced(in.size(), axes.empty());
  auto normalized = normalizeAxes(ctx, axes, in.size());
  if (!normalized) return normalized.error();
  for (size_t axis : *normalized) reduced[axis] = true;
  const bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  Shape out;
  for (size_t d = 0; d < in.size(); ++d)
    if (!reduced[d] || keepDims) out.push_back(reduced[d] ? Dim(1) : in[d]);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

// channels_last keeps the channels in the last dim ([N, spatial..., C]); these move them to dim 1 and back.
Shape channelsFirst(Shape shape) {
  std::rotate(shape.begin() + 1, shape.end() - 1, shape.end());
  return shape;
}
Shape channelsLast(Shape shape) {
  std::rotate(shape.begin() + 1, shape.begin() + 2, shape.end());
  return shape;
}

// QLinearAveragePool: AveragePool's window arithmetic, on NCHW or (channels_last) NHWC data.
Expected<void> inferQLinearAveragePool(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const bool last = ctx.attrInt("channels_last", 0) != 0;
  const Shape& input = *ctx.inputShape(0);
  if (input.size() < 3) return ctx.error("QLinearAveragePool input must have rank >= 3");
  const Shape x = last ? channelsFirst(input) : input;
  auto kernel = ctx.attrInts("kernel_shape");
  if (!kernel) return ctx.error("QLinearAveragePool needs a 'kernel_shape' attribute");
  auto spatial = nn_shapes::windowOutput(ctx, x, dimsFromInts(*kernel), ctx.attrInt("ceil_mode", 0) != 0);
  if (!spatial) return spatial.error();
  Shape out{x[0], x[1]};
  out.insert(out.end(), spatial->begin(), spatial->end());
  ctx.setOutputTensor(0, elem, last ? channelsLast(std::move(out)) : std::move(out));
  return {};
}

// QLinearGlobalAveragePool: the spatial dims become 1, the channels staying at dim 1 or (channels_last) last.
Expected<void> inferQLinearGlobalAveragePool(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  Shape out = *ctx.inputShape(0);
  if (out.size() < 3) return ctx.error("QLinearGlobalAveragePool input must have rank >= 3");
  const bool last = ctx.attrInt("channels_last", 0) != 0;
  for (size_t d = last ? 1 : 2; d < out.size() - (last ? 1 : 0); ++d) out[d] = Dim(1);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

// QLinearConcat: inputs Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per tensor; Concat of the Xs.
Expected<void> inferQLinearConcat(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(1);
  if (ctx.inputCount() < 5 || (ctx.inputCount() - 2) % 3 != 0)
    return ctx.error("QLinearConcat takes Y_scale, Y_zero_point and then (X, X_scale, X_zero_point) triples");
  for (size_t i = 2; i < ctx.inputCount(); i += 3)
    if (forwardUnknownRank(ctx, i, 0, elem)) return {};
  Shape out = *ctx.inputShape(2);
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), out.size());
  if (!axis) return axis.error();
  for (size_t i = 5; i < ctx.inputCount(); i += 3) {
    const Shape& x = *ctx.inputShape(i);
    if (x.size() != out.size()) return ctx.error("QLinearConcat inputs " + ctx.describeInput(2) + " and " + ctx.describeInput(i) + " differ in rank");
    out[*axis] = dimAdd(out[*axis], x[*axis]);
  }
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

}  // namespace

void registerQLinearSchemas(OpRegistry& registry) {
  registry.add({kMs, "QLinearAdd", OpCategory::Quantization, {1}, 7, 8, 1, 1, false, inferQLinearBinary});
  registry.add({kMs, "QLinearMul", OpCategory::Quantization, {1}, 7, 8, 1, 1, false, inferQLinearBinary});
  registry.add({kMs, "QLinearSigmoid", OpCategory::Quantization, {1}, 4, 5, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "QLinearLeakyRelu", OpCategory::Quantization, {1}, 4, 5, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "QLinearSoftmax", OpCategory::Quantization, {1}, 4, 5, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "QLinearWhere", OpCategory::Quantization, {1}, 9, 9, 1, 1, false, inferQLinearWhere});
  registry.add({kMs, "QLinearReduceMean", OpCategory::Reduction, {1}, 4, 5, 1, 1, false, inferQLinearReduceMean});
  registry.add({kMs, "QLinearAveragePool", OpCategory::Pool, {1}, 4, 5, 1, 1, false, inferQLinearAveragePool});
  registry.add({kMs, "QLinearGlobalAveragePool", OpCategory::Pool, {1}, 4, 5, 1, 1, false, inferQLinearGlobalAveragePool});
  registry.add({kMs, "QLinearConcat", OpCategory::DataMovement, {1}, 5, OpSchema::kVariadic, 1, 1, false, inferQLinearConcat});
}

}  // namespace onyx
