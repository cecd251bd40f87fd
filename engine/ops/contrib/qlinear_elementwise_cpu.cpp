// The com.microsoft QLinear* element-wise ops of ONNX Runtime's static quantizer, on uint8 or int8 tensors
// with per-tensor scales and zero points: QLinearAdd and QLinearMul (numpy broadcasting), the unary
// QLinearSigmoid and QLinearLeakyRelu, QLinearSoftmax and QLinearWhere. Each dequantizes, computes in float and requantizes
// as ONNX Runtime's CPU kernels do; the unary ops go through a 256-entry table, ONNX Runtime's own approach.
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/contrib/contrib_kernels.h"
#include "util/clamp_or_zero.h"
#include "ops/contrib/qlinear_kernels.h"

namespace onyx::exec::contrib {

Expected<ByteType> byteTypeOf(const KernelContext& ctx, size_t input) {
  const DataType dtype = ctx.input(input).dtype();
  if (dtype == DataType::Uint8) return ByteType{dtype, 0, 255};
  if (dtype == DataType::Int8) return ByteType{dtype, -128, 127};
  return ctx.unsupportedType(int(input));
}

Expected<QuantizedUnary> quantizedUnaryInputs(const KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto type = byteTypeOf(ctx, 0);
  if (!type) return type.error();
  auto qx = quantizationAt(ctx, 1, 2, *type);
  if (!qx) return qx.error();
  auto qy = quantizationAt(ctx, 3, 4, *type);
  if (!qy) return qy.error();
  return QuantizedUnary{*x, *type, *qx, *qy};
}

Expected<Quantization> quantizationAt(const KernelContext& ctx, size_t scaleInput, size_t zeroInput, const ByteType& type) {
  auto scale = ctx.requireTensor(scaleInput);
  if (!scale) return scale.error();
  if (!isFloatStorage((*scale)->dtype()) || (*scale)->count() != 1)
    return ctx.error("the scale must be one float (per tensor), got " + (*scale)->describe(), int(scaleInput));
  Quantization q{float((*scale)->doubleAt(0)), 0};
  if (zeroInput < ctx.inputCount() && ctx.hasInput(zeroInput)) {
    const TensorValue& zero = ctx.input(zeroInput);
    if (zero.dtype() != type.dtype || zero.count() != 1)
      return ctx.error("the zero point must be one value of the data's type (per tensor), got " + zero.describe(), int(zeroInput));
    q.zero = int32_t(zero.doubleAt(0));
  }
  return q;
}

int32_t quantize(float v, const Quantization& q, const ByteType& type) {
  const float scaled = clampOrZero(v / q.scale, float(type.lo - q.zero), float(type.hi - q.zero));
  return int32_t(std::nearbyint(scaled)) + q.zero;  // the default rounding mode: ties to even
}

std::vector<int32_t> bytesOf(const TensorValue& t) {
  std::vector<int32_t> out(size_t(t.count()));
  if (t.dtype() == DataType::Uint8)
    for (int64_t i = 0; i < t.count(); ++i) out[size_t(i)] = t.data<uint8_t>()[i];
  else
    for (int64_t i = 0; i < t.count(); ++i) out[size_t(i)] = t.data<int8_t>()[i];
  return out;
}

void storeBytes(const std::vector<int32_t>& values, TensorValue& out) {
  if (out.dtype() == DataType::Uint8)
    for (size_t i = 0; i < values.size(); ++i) out.data<uint8_t>()[i] = uint8_t(values[i]);
  else
    for (size_t i = 0; i < values.size(); ++i) out.data<int8_t>()[i] = int8_t(values[i]);
}

namespace {

enum class Binary { Add, Mul };

// Inputs A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point; C broadcasts A and B.
template <Binary Op>
Expected<void> runQLinearBinary(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(3);
  if (!b) return b.error();
  auto type = byteTypeOf(ctx, 0);
  if (!type) return type.error();
  if ((*b)->dtype() != type->dtype) return ctx.error("B must have A's type, got " + (*b)->describe(), 3);
  auto qa = quantizationAt(ctx, 1, 2, *type);
  if (!qa) return qa.error();
  auto qb = quantizationAt(ctx, 4, 5, *type);
  if (!qb) return qb.error();
  auto qc = quantizationAt(ctx, 6, 7, *type);
  if (!qc) return qc.error();
  auto outDims = broadcastShapes({&(*a)->dims(), &(*b)->dims()});
  if (!outDims) return ctx.error("cannot broadcast " + (*a)->describe() + " with " + (*b)->describe());
  const std::vector<int32_t> av = bytesOf(**a), bv = bytesOf(**b);
  std::vector<int32_t> c(size_t(elementCount(*outDims)));
  const std::array<std::vector<int64_t>, 2> strides{broadcastStrides((*a)->dims(), *outDims), broadcastStrides((*b)->dims(), *outDims)};
  forEachBroadcast<2>(*outDims, strides, [&](int64_t out, const std::array<int64_t, 2>& at) {
    const float x = qa->dequantize(av[size_t(at[0])]), y = qb->dequantize(bv[size_t(at[1])]);
    c[size_t(out)] = quantize(Op == Binary::Add ? x + y : x * y, *qc, *type);
  });
  auto out = ctx.allocateOutput(0, type->dtype, *outDims);
  if (!out) return out.error();
  storeBytes(c, **out);
  return {};
}

// Inputs X, X_scale, X_zero_point, Y_scale, Y_zero_point: Y = f(X) through the table of all 256 values.
template <class F>
Expected<void> runQLinearUnary(KernelContext& ctx, F f) {
  auto in = quantizedUnaryInputs(ctx);
  if (!in) return in.error();
  const TensorValue* x = in->x;  // named, not structured bindings: clang 14 cannot capture those
  const ByteType& type = in->type;
  const Quantization &qx = in->qx, &qy = in->qy;
  std::vector<int32_t> table(256);
  for (int32_t v = type.lo; v <= type.hi; ++v) table[size_t(v - type.lo)] = quantize(f(qx.dequantize(v)), qy, type);
  std::vector<int32_t> y = bytesOf(*x);
  for (int32_t& v : y) v = table[size_t(v - type.lo)];
  auto out = ctx.allocateOutput(0, type.dtype, x->dims());
  if (!out) return out.error();
  storeBytes(y, **out);
  return {};
}

Expected<void> runQLinearSigmoid(KernelContext& ctx) {
  return runQLinearUnary(ctx, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}

Expected<void> runQLinearLeakyRelu(KernelContext& ctx) {
  const float alpha = ctx.attrFloat("alpha", 0.01f);
  return runQLinearUnary(ctx, [alpha](float v) { return v >= 0 ? v : v * alpha; });
}

// Inputs X, X_scale, x_zero_point, y_scale, y_zero_point. Attribute `opset`, the original Softmax's: below 13
// the rows are X coerced to 2-D at `axis`, from 13 the single `axis`; `axis` is -1 by default either way
// (ONNX Runtime's schema, not Softmax-11's default of 1). Each row's
// exp((x - max) * X_scale) are summed in float and every value times the sum's reciprocal is requantized.
Expected<void> runQLinearSoftmax(KernelContext& ctx) {
  auto in = quantizedUnaryInputs(ctx);
  if (!in) return in.error();
  const TensorValue* x = in->x;  // named, not structured bindings: clang 14 cannot capture those
  const ByteType& type = in->type;
  const Quantization &qx = in->qx, &qy = in->qy;
  const bool singleAxis = ctx.attrInt("opset", 13) >= 13;
  const int64_t axisAttr = ctx.attrInt("axis", -1);
  auto axis = normalizeAxis(axisAttr, x->rank());
  if (!axis) return ctx.error("axis " + std::to_string(axisAttr) + " is out of range for " + x->describe(), 0);
  AxisSplit split = axisSplit(x->dims(), *axis);
  if (!singleAxis) split = {split.outer, split.len * split.inner, 1};
  std::vector<float> table(256);  // exp((v - max) * scale) for v - max in [-255, 0]
  for (int32_t d = -255; d <= 0; ++d) table[size_t(d + 255)] = std::exp(float(d) * qx.scale);
  std::vector<int32_t> y = bytesOf(*x);
  for (int64_t o = 0; o < split.outer; ++o)
    for (int64_t i = 0; i < split.inner; ++i) {
      auto at = [&](int64_t j) -> int32_t& { return y[size_t((o * split.len + j) * split.inner + i)]; };
      int32_t max = type.lo;
      for (int64_t j = 0; j < split.len; ++j) max = std::max(max, at(j));
      float sum = 0.0f;
      for (int64_t j = 0; j < split.len; ++j) sum += table[size_t(at(j) - max + 255)];
      const float reciprocal = 1.0f / sum;
      for (int64_t j = 0; j < split.len; ++j) at(j) = quantize(table[size_t(at(j) - max + 255)] * reciprocal, qy, type);
    }
  auto out = ctx.allocateOutput(0, type.dtype, x->dims());
  if (!out) return out.error();
  storeBytes(y, **out);
  return {};
}

// Inputs condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point: Where over
// the three broadcast, X and Y requantized to Z's scale and zero point through a table each.
Expected<void> runQLinearWhere(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  auto y = ctx.requireTensor(4);
  if (!y) return y.error();
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& condition = std::get<0>(*inputs);
  const auto& x = std::get<1>(*inputs);
  if (condition.dtype() != DataType::Bool) return ctx.unsupportedType(0);
  auto type = byteTypeOf(ctx, 1);
  if (!type) return type.error();
  if ((*y)->dtype() != type->dtype) return ctx.error("Y must have X's type, got " + (*y)->describe(), 4);
  auto qx = quantizationAt(ctx, 2, 3, *type);
  if (!qx) return qx.error();
  auto qy = quantizationAt(ctx, 5, 6, *type);
  if (!qy) return qy.error();
  auto qz = quantizationAt(ctx, 7, 8, *type);
  if (!qz) return qz.error();
  auto outDims = broadcastShapes({&condition.dims(), &x.dims(), &(*y)->dims()});
  if (!outDims) return ctx.error("cannot broadcast " + condition.describe() + ", " + x.describe() + " and " + (*y)->describe());
  std::vector<int32_t> fromX(256), fromY(256);
  for (int32_t v = type->lo; v <= type->hi; ++v) {
    fromX[size_t(v - type->lo)] = quantize(qx->dequantize(v), *qz, *type);
    fromY[size_t(v - type->lo)] = quantize(qy->dequantize(v), *qz, *type);
  }
  const std::vector<int32_t> xv = bytesOf(x), yv = bytesOf(**y);
  std::vector<int32_t> z(size_t(elementCount(*outDims)));
  const std::array<std::vector<int64_t>, 3> strides{broadcastStrides(condition.dims(), *outDims), broadcastStrides(x.dims(), *outDims),
                                                    broadcastStrides((*y)->dims(), *outDims)};
  forEachBroadcast<3>(*outDims, strides, [&](int64_t out, const std::array<int64_t, 3>& at) {
    z[size_t(out)] = condition.doubleAt(at[0]) != 0 ? fromX[size_t(xv[size_t(at[1])] - type->lo)] : fromY[size_t(yv[size_t(at[2])] - type->lo)];
  });
  auto out = ctx.allocateOutput(0, type->dtype, *outDims);
  if (!out) return out.error();
  storeBytes(z, **out);
  return {};
}

}  // namespace

void registerQLinearElementwiseCpuKernels(KernelRegistry& registry) {
  registry.add(microsoftKernel("QLinearAdd", runQLinearBinary<Binary::Add>));
  registry.add(microsoftKernel("QLinearMul", runQLinearBinary<Binary::Mul>));
  registry.add(microsoftKernel("QLinearSigmoid", runQLinearSigmoid));
  registry.add(microsoftKernel("QLinearLeakyRelu", runQLinearLeakyRelu));
  registry.add(microsoftKernel("QLinearSoftmax", runQLinearSoftmax));
  registry.add(microsoftKernel("QLinearWhere", runQLinearWhere));
}

}  // namespace onyx::exec::contrib
