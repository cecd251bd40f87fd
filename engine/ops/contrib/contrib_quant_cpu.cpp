// The com.microsoft integer ops of ONNX Runtime's dynamic and static quantizers: MatMulIntegerToFloat
// ((A - a_zp)(B - b_zp) * a_scale * b_scale + bias), DynamicQuantizeMatMul (A quantized per tensor to uint8
// as ONNX Runtime does, then the same), and QuantizeLinear / DequantizeLinear with an axis attribute.
// Integer products run as float products (sgemm in the fast variants, contrib_math.h): exact for the sums
// these sizes give.
#include <cmath>

#include "util/clamp_or_zero.h"
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

bool isByte(DataType t) { return t == DataType::Uint8 || t == DataType::Int8; }

// A per-tensor or per-column (n values) parameter as n floats; absent: `fallback`.
Expected<std::vector<float>> perColumn(const KernelContext& ctx, size_t input, int64_t n, float fallback) {
  if (!ctx.hasInput(input)) return std::vector<float>(size_t(n), fallback);
  const TensorValue& t = ctx.input(input);
  std::vector<float> v(size_t(t.count()));
  for (int64_t i = 0; i < t.count(); ++i) v[size_t(i)] = float(t.doubleAt(i));
  if (t.count() == 1) return std::vector<float>(size_t(n), v[0]);
  if (t.count() != n) return ctx.error(t.describe() + " must be a scalar or hold " + std::to_string(n) + " values", int(input));
  return v;
}

// Y[rows, n] = (A - aZero)(B - bZero[n]) * aScale * bScale[n] + bias[n]; A rows of k values as float.
Expected<void> integerProduct(KernelContext& ctx, const ContribMath& math, const std::vector<float>& a, float aZero, float aScale, int64_t rows, size_t bInput,
                              size_t bScaleInput, size_t bZeroInput, size_t biasInput, DataType outType, Dims outDims) {
  const TensorValue& b = ctx.input(bInput);
  if (!isByte(b.dtype()) || b.rank() != 2) return ctx.error("B must be an 8-bit matrix (K, N), got " + b.describe(), int(bInput));
  const int64_t k = b.dim(0), n = b.dim(1);
  auto bScale = perColumn(ctx, bScaleInput, n, 1.0f);
  if (!bScale) return bScale.error();
  auto bZero = perColumn(ctx, bZeroInput, n, 0.0f);
  if (!bZero) return bZero.error();
  auto bias = perColumn(ctx, biasInput, n, 0.0f);
  if (!bias) return bias.error();
  std::vector<float> bf(size_t(k * n)), centered(a.size()), y(size_t(rows * n), 0.0f);
  for (int64_t i = 0; i < k * n; ++i) bf[size_t(i)] = float(b.doubleAt(i)) - (*bZero)[size_t(i % n)];
  for (size_t i = 0; i < a.size(); ++i) centered[i] = a[i] - aZero;
  if (rows && n && k) math.gemm(false, false, rows, n, k, 1.0f, centered.data(), k, bf.data(), n, 0.0f, y.data(), n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) y[size_t(r * n + j)] = y[size_t(r * n + j)] * aScale * (*bScale)[size_t(j)] + (*bias)[size_t(j)];
  outDims.back() = n;
  auto out = ctx.allocateOutput(0, outType, outDims);
  if (!out) return out.error();
  fromFloats(outType, y.data(), (*out)->raw(), rows * n);
  return {};
}

template <bool Fast>
Expected<void> runMatMulIntegerToFloat(KernelContext& ctx) {
  auto inputs = requireTensors<4>(ctx);
  if (!inputs) return inputs.error();
  const auto& [a, b, aScale, bScale] = *inputs;
  if (!isByte(a.dtype())) return ctx.unsupportedType(0);
  if (!isFloatStorage(aScale.dtype()) || aScale.count() != 1) return ctx.error("a_scale must be one float (per-tensor)", 2);
  // b_scale's type is the output's (T3: float or float16); a 1-byte one had 2-byte elements written into it
  // (fuzz: heap write overflow).
  if (bScale.dtype() != DataType::Float && bScale.dtype() != DataType::Float16)
    return ctx.error("b_scale must be float or float16 (the output's type), got " + bScale.describe(), 3);
  // One type T3 for both scales and the output, as shape inference (which reads a_scale's) assumes.
  if (bScale.dtype() != aScale.dtype())
    return ctx.error("b_scale " + bScale.describe() + " must have a_scale's type " + aScale.describe(), 3);
  if (a.rank() < 1 || b.rank() != 2 || a.dim(a.rank() - 1) != b.dim(0)) return ctx.error("cannot multiply " + a.describe() + " by " + b.describe());
  if (ctx.hasInput(4) && ctx.input(4).count() != 1) return ctx.error("a_zero_point must be one value (per-tensor)", 4);
  const float aZero = ctx.hasInput(4) ? float(ctx.input(4).doubleAt(0)) : 0.0f;
  std::vector<float> af(size_t(a.count()));
  for (int64_t i = 0; i < a.count(); ++i) af[size_t(i)] = float(a.doubleAt(i));
  const int64_t k = b.dim(0);
  return integerProduct(ctx, contribMath<Fast>(), af, aZero, float(aScale.doubleAt(0)), k ? a.count() / k : 0, 1, 3, 5, 6, bScale.dtype(), a.dims());
}

float roundHalfEven(float v) { return std::nearbyint(v); }  // the default rounding mode: ties to even

template <bool Fast>
Expected<void> runDynamicQuantizeMatMul(KernelContext& ctx) {
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const auto& [a, b, bScale] = *inputs;
  if (!isFloatStorage(a.dtype())) return ctx.unsupportedType(0);
  if (a.rank() < 1 || b.rank() != 2 || a.dim(a.rank() - 1) != b.dim(0)) return ctx.error("cannot multiply " + a.describe() + " by " + b.describe());
  std::vector<float> af = floatsOf(a);
  float lo = 0, hi = 0;
  for (float v : af) lo = std::min(lo, v), hi = std::max(hi, v);
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zero = clampOrZero(roundHalfEven(-lo / scale), 0.0f, 255.0f);
  for (float& v : af) v = clampOrZero(roundHalfEven(v / scale) + zero, 0.0f, 255.0f);
  const int64_t k = b.dim(0);
  return integerProduct(ctx, contribMath<Fast>(), af, zero, scale, k ? a.count() / k : 0, 1, 2, 3, 4, a.dtype(), a.dims());
}

// Per-tensor, or per-axis with 1-D parameters along `axis`: the parameter index of element i.
struct AxisParams {
  int64_t inner = 1, size = 1;
  bool perAxis = false;
  int64_t at(int64_t i) const { return perAxis ? (i / inner) % size : 0; }
};

Expected<AxisParams> axisParams(const KernelContext& ctx, const TensorValue& x, const TensorValue& scale) {
  AxisParams p;
  if (scale.count() == 1) return p;
  auto axis = normalizeAxis(ctx.attrInt("axis", 1), x.rank());
  if (!axis || scale.rank() != 1 || scale.count() != x.dim(*axis))
    return ctx.error("scale " + scale.describe() + " must be a scalar or a vector along axis " + std::to_string(ctx.attrInt("axis", 1)), 1);
  p.perAxis = true;
  p.size = x.dim(*axis);
  for (int64_t d = *axis + 1; d < x.rank(); ++d) p.inner *= x.dim(d);
  return p;
}

// The zero point (input 2) is indexed where the scale is: it must hold one value or as many as the scale
// (fuzz: read past a zero point shorter than the scale, or an empty one).
Expected<void> checkZeroPoint(const KernelContext& ctx, const TensorValue& scale) {
  if (!ctx.hasInput(2)) return {};
  const TensorValue& zero = ctx.input(2);
  if (zero.count() != 1 && zero.count() != scale.count())
    return ctx.error("zero point " + zero.describe() + " must hold one value or one per scale (" + std::to_string(scale.count()) + ")", 2);
  return {};
}

Expected<void> runQuantizeLinear(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [x, scale] = *inputs;
  if (!isFloatStorage(x.dtype())) return ctx.unsupportedType(0);
  // floatsOf read a scale of another type as 16-bit floats (fuzz: read past a 1-byte y_scale).
  if (!isFloatStorage(scale.dtype())) return ctx.error("y_scale must be float, float16 or bfloat16, got " + scale.describe(), 1);
  const DataType outType = ctx.hasInput(2) ? ctx.input(2).dtype() : DataType::Uint8;
  double lo = 0, hi = 0;
  switch (outType) {
    case DataType::Uint8: hi = 255; break;
    case DataType::Int8: lo = -128, hi = 127; break;
    case DataType::Uint16: hi = 65535; break;
    case DataType::Int16: lo = -32768, hi = 32767; break;
    default: return ctx.unsupportedType(2);
  }
  auto p = axisParams(ctx, x, scale);
  if (!p) return p.error();
  if (auto zero = checkZeroPoint(ctx, scale); !zero) return zero.error();
  const std::vector<float> xs = floatsOf(x), scales = floatsOf(scale);
  auto y = ctx.allocateOutput(0, outType, x.dims());
  if (!y) return y.error();
  for (int64_t i = 0; i < x.count(); ++i) {
    const int64_t j = p->at(i);
    const double zero = ctx.hasInput(2) ? ctx.input(2).doubleAt(ctx.input(2).count() == 1 ? 0 : j) : 0.0;
    const double q = clampOrZero(double(roundHalfEven(xs[size_t(i)] / scales[size_t(j)])) + zero, lo, hi);
    dispatchType<kInts>(outType, [&](auto tag) { (*y)->template data<decltype(tag)>()[i] = decltype(tag)(q); });
  }
  return {};
}

Expected<void> runDequantizeLinear(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [x, scale] = *inputs;
  if (!isFloatStorage(scale.dtype())) return ctx.unsupportedType(1);
  auto p = axisParams(ctx, x, scale);
  if (!p) return p.error();
  if (auto zero = checkZeroPoint(ctx, scale); !zero) return zero.error();
  const std::vector<float> scales = floatsOf(scale);
  std::vector<float> out(size_t(x.count()));
  for (int64_t i = 0; i < x.count(); ++i) {
    const int64_t j = p->at(i);
    const double zero = ctx.hasInput(2) ? ctx.input(2).doubleAt(ctx.input(2).count() == 1 ? 0 : j) : 0.0;
    out[size_t(i)] = float((x.doubleAt(i) - zero) * scales[size_t(j)]);
  }
  auto y = ctx.allocateOutput(0, scale.dtype(), x.dims());
  if (!y) return y.error();
  fromFloats(scale.dtype(), out.data(), (*y)->raw(), x.count());
  return {};
}

}  // namespace

void registerContribQuantCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "MatMulIntegerToFloat", runMatMulIntegerToFloat<false>, runMatMulIntegerToFloat<true>);
  addMicrosoftKernels(registry, "DynamicQuantizeMatMul", runDynamicQuantizeMatMul<false>, runDynamicQuantizeMatMul<true>);
  registry.add(microsoftKernel("QuantizeLinear", runQuantizeLinear));
  registry.add(microsoftKernel("DequantizeLinear", runDequantizeLinear));
}

}  // namespace onyx::exec::contrib
