// Shape functions of quantization ops: element types change, shapes mostly follow the data input.
#include "catalog/op_registry.h"
#include "ops/nn/nn_shapes.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

Expected<void> withType(ShapeContext& ctx, size_t input, DataType elem) {
  if (forwardUnknownRank(ctx, input, 0, elem)) return {};
  ctx.setOutputTensor(0, elem, *ctx.inputShape(input));
  return {};
}

Expected<void> inferQuantizeLinear(ShapeContext& ctx) {
  DataType elem = DataType::Uint8;
  if (ctx.hasInput(2)) elem = ctx.inputElemType(2);
  else if (ctx.opset() >= 21 && ctx.attrInt("output_dtype", 0) != 0) elem = static_cast<DataType>(ctx.attrInt("output_dtype", 0));
  return withType(ctx, 0, elem);
}

Expected<void> inferDequantizeLinear(ShapeContext& ctx) {
  DataType elem = ctx.hasInput(1) ? ctx.inputElemType(1) : DataType::Float;
  if (ctx.opset() >= 23 && ctx.attrInt("output_dtype", 0) != 0) elem = static_cast<DataType>(ctx.attrInt("output_dtype", 0));
  return withType(ctx, 0, elem);
}

Expected<void> inferDynamicQuantizeLinear(ShapeContext& ctx) {
  auto done = withType(ctx, 0, DataType::Uint8);
  ctx.setOutputTensor(1, DataType::Float, {});
  ctx.setOutputTensor(2, DataType::Uint8, {});
  return done;
}

// QLinearMatMul (a = input 0, b = input 3, output type of input 7) and MatMulInteger (int32).
Expected<void> inferQLinearMatMul(ShapeContext& ctx) {
  bool integer = ctx.node().opType() == "MatMulInteger";
  size_t bInput = integer ? 1 : 3;
  DataType elem = integer ? DataType::Int32 : ctx.inputElemType(7);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, bInput, 0, elem)) return {};
  Shape a = *ctx.inputShape(0), b = *ctx.inputShape(bInput);
  if (a.empty() || b.empty()) return ctx.error(ctx.node().opType() + " inputs must not be scalars");
  bool vectorA = a.size() == 1, vectorB = b.size() == 1;
  if (vectorA) a.insert(a.begin(), Dim(1));
  if (vectorB) b.push_back(Dim(1));
  auto k = ctx.requireEqual(a.back(), 0, b[b.size() - 2], bInput, "the inner dims of a matrix product");
  if (!k) return k.error();
  auto batch = ctx.broadcastShapes(Shape(a.begin(), a.end() - 2), 0, Shape(b.begin(), b.end() - 2), bInput);
  if (!batch) return batch.error();
  Shape out = *batch;
  if (!vectorA) out.push_back(a[a.size() - 2]);
  if (!vectorB) out.push_back(b.back());
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferQLinearConv(ShapeContext& ctx) { return nn_shapes::inferConv(ctx); }

}  // namespace

void registerQuantizationSchemas(OpRegistry& registry) {
  registry.add({"", "QuantizeLinear", OpCategory::Quantization, {10, 13, 19, 21, 23, 24, 25}, 2, 3, 1, 1, false, inferQuantizeLinear});
  registry.add({"", "DequantizeLinear", OpCategory::Quantization, {10, 13, 19, 21, 23, 24, 25}, 2, 3, 1, 1, false, inferDequantizeLinear});
  registry.add({"", "DynamicQuantizeLinear", OpCategory::Quantization, {11}, 1, 1, 3, 3, false, inferDynamicQuantizeLinear});
  registry.add({"", "QLinearMatMul", OpCategory::Quantization, {10, 21}, 8, 8, 1, 1, false, inferQLinearMatMul});
  registry.add({"", "MatMulInteger", OpCategory::Quantization, {10}, 2, 4, 1, 1, false, inferQLinearMatMul});
  registry.add({"", "QLinearConv", OpCategory::Quantization, {10}, 8, 9, 1, 1, false, inferQLinearConv});
  registry.add({"", "ConvInteger", OpCategory::Layer, {10}, 2, 4, 1, 1, false, nn_shapes::inferConv});
}

}  // namespace onyx
