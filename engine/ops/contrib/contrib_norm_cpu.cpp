// The com.microsoft layer normalizations, in float32 over rows of the last dim whatever the storage type:
// SkipLayerNormalization (input + skip + bias, then LayerNorm: a fast variant through the vectorised row
// kernel, and its reference, contrib_math.h),
// SkipSimplifiedLayerNormalization (the same with an RMS norm) and SimplifiedLayerNormalization (RMS norm
// over axis..end). Optional outputs: mean, inverse standard deviation and the input + skip + bias sum.
#include <cmath>

#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

// y = x / sqrt(mean(x^2) + eps) * scale; returns the inverse root.
float rmsNormRow(const float* x, float* y, int64_t n, const float* scale, float eps) {
  double squares = 0;
  for (int64_t i = 0; i < n; ++i) squares += double(x[i]) * x[i];
  const float inv = 1.0f / std::sqrt(float(squares / double(n)) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * inv * scale[i];
  return inv;
}

// Allocates optional float statistics output `i` ([..., 1] over `rows` rows) when wanted; null otherwise.
Expected<float*> statsOutput(KernelContext& ctx, size_t i, Dims dims, size_t firstNormalized) {
  if (!ctx.wantsOutput(i)) return nullptr;
  for (size_t d = firstNormalized; d < dims.size(); ++d) dims[d] = 1;
  auto out = ctx.allocateOutput(i, DataType::Float, std::move(dims));
  if (!out) return out.error();
  return (*out)->data<float>();
}

template <bool Simplified, bool Fast>
Expected<void> runSkipNorm(KernelContext& ctx) {
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const auto& [xInput, skipInput, gammaInput] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& x = xInput; const auto& skip = skipInput; const auto& gamma = gammaInput;
  const TensorValue& beta = Simplified ? TensorValue() : ctx.input(3);
  const TensorValue& bias = ctx.input(Simplified ? 3 : 4);
  for (size_t i = 0; i < 5; ++i) {
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  }
  if (x.rank() < 1) return ctx.error("input must have at least one dimension", 0);
  const int64_t cols = x.dim(x.rank() - 1), rows = cols ? x.count() / cols : 0;
  if (gamma.count() != cols) return ctx.error("gamma " + gamma.describe() + " must hold the hidden size " + std::to_string(cols), 2);
  if (!beta.empty() && beta.count() != cols) return ctx.error("beta " + beta.describe() + " must hold the hidden size", 3);
  if (!bias.empty() && bias.count() != cols) return ctx.error("bias " + bias.describe() + " must hold the hidden size", Simplified ? 3 : 4);
  if (skip.rank() < 1 || skip.count() == 0 || x.count() % std::max<int64_t>(skip.count(), 1) != 0 || skip.dim(skip.rank() - 1) != cols)
    return ctx.error("skip " + skip.describe() + " does not broadcast to input " + x.describe(), 1);
  const int64_t skipRows = cols ? skip.count() / cols : 0;
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  auto meanOut = statsOutput(ctx, 1, x.dims(), size_t(x.rank() - 1));
  if (!meanOut) return meanOut.error();
  auto invOut = statsOutput(ctx, 2, x.dims(), size_t(x.rank() - 1));
  if (!invOut) return invOut.error();
  TensorValue* sum = nullptr;
  if (ctx.wantsOutput(3)) {
    auto s = ctx.allocateOutput(3, x.dtype(), x.dims());
    if (!s) return s.error();
    sum = *s;
  }
  const std::vector<float> g = floatsOf(gamma), b = floatsOf(beta), bi = floatsOf(bias);
  const float eps = ctx.attrFloat("epsilon", Simplified ? 1e-6f : 1e-12f);
  const size_t bytes = elementBytes(x.dtype());
  const auto* xs = static_cast<const uint8_t*>(x.raw());
  const auto* ss = static_cast<const uint8_t*>(skip.raw());
  auto* ys = static_cast<uint8_t*>((*y)->raw());
  ctx.parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1)), [&](int64_t rb, int64_t re) {
    std::vector<float> v(static_cast<size_t>(cols)), s(v), out(v);
    for (int64_t r = rb; r < re; ++r) {
      toFloats(x.dtype(), xs + size_t(r * cols) * bytes, v.data(), cols);
      toFloats(skip.dtype(), ss + size_t((r % skipRows) * cols) * elementBytes(skip.dtype()), s.data(), cols);
      for (int64_t i = 0; i < cols; ++i) v[size_t(i)] += s[size_t(i)] + (bi.empty() ? 0.0f : bi[size_t(i)]);
      if (sum) fromFloats(x.dtype(), v.data(), static_cast<uint8_t*>(sum->raw()) + size_t(r * cols) * bytes, cols);
      float mean = 0, inv = 0;
      if constexpr (Simplified) inv = rmsNormRow(v.data(), out.data(), cols, g.data(), eps);
      else mean = contribMath<Fast>().layerNormRow(v.data(), out.data(), cols, g.data(), b.empty() ? nullptr : b.data(), eps, &inv);
      if (*meanOut) (*meanOut)[r] = mean;
      if (*invOut) (*invOut)[r] = inv;
      fromFloats(x.dtype(), out.data(), ys + size_t(r * cols) * bytes, cols);
    }
  });
  return {};
}

Expected<void> runSimplifiedNorm(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [xInput, scaleInput] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& x = xInput; const auto& scale = scaleInput;
  if (!isFloatStorage(x.dtype())) return ctx.unsupportedType(0);
  if (!isFloatStorage(scale.dtype())) return ctx.unsupportedType(1);
  auto axis = normalizeAxis(ctx.attrInt("axis", -1), x.rank());
  if (!axis) return ctx.error("axis " + std::to_string(ctx.attrInt("axis", -1)) + " is out of range for " + x.describe());
  int64_t cols = 1;
  for (int64_t d = *axis; d < x.rank(); ++d) cols *= x.dim(d);
  const int64_t rows = cols ? x.count() / cols : 0;
  if (scale.count() != cols)
    return ctx.error("scale " + scale.describe() + " must hold the " + std::to_string(cols) + " normalized elements", 1);
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  auto invOut = statsOutput(ctx, 1, x.dims(), size_t(*axis));
  if (!invOut) return invOut.error();
  const std::vector<float> g = floatsOf(scale);
  const float eps = ctx.attrFloat("epsilon", 1e-5f);
  const size_t bytes = elementBytes(x.dtype());
  const auto* xs = static_cast<const uint8_t*>(x.raw());
  auto* ys = static_cast<uint8_t*>((*y)->raw());
  ctx.parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1)), [&](int64_t rb, int64_t re) {
    std::vector<float> v(static_cast<size_t>(cols)), out(v);
    for (int64_t r = rb; r < re; ++r) {
      toFloats(x.dtype(), xs + size_t(r * cols) * bytes, v.data(), cols);
      const float inv = rmsNormRow(v.data(), out.data(), cols, g.data(), eps);
      if (*invOut) (*invOut)[r] = inv;
      fromFloats(x.dtype(), out.data(), ys + size_t(r * cols) * bytes, cols);
    }
  });
  return {};
}

}  // namespace

void registerContribNormCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "SkipLayerNormalization", runSkipNorm<false, false>, runSkipNorm<false, true>);
  registry.add(microsoftKernel("SkipSimplifiedLayerNormalization", runSkipNorm<true, false>));
  registry.add(microsoftKernel("SimplifiedLayerNormalization", runSimplifiedNorm));
  registry.add(kernel("SimplifiedLayerNormalization", runSimplifiedNorm, 1));  // ai.onnx, where ONNX Runtime has it
}

}  // namespace onyx::exec::contrib
