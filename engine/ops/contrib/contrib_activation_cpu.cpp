// The com.microsoft activations and bias fusions, computed in float32 a chunk at a time whatever the storage
// type: Gelu (erf), FastGelu (tanh approximation, optional bias), BiasGelu, QuickGelu (x * sigmoid(alpha x)),
// BiasAdd (X + bias + skip) and BiasSoftmax (softmax of data + broadcast bias). Each but BiasAdd has a fast
// variant and its reference (contrib_math.h).
#include <cmath>

#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

constexpr int64_t kChunk = 1024;

enum class Gelu { Erf, Tanh, Quick };

void applyGelu(const ContribMath& math, Gelu kind, float alpha, float* v, float* tmp, int64_t n) {
  switch (kind) {
    case Gelu::Erf:
      math.geluErf(v, v, n, 0, 0);
      break;
    case Gelu::Tanh:
      for (int64_t i = 0; i < n; ++i) tmp[i] = 0.7978845608028654f * (v[i] + 0.044715f * v[i] * v[i] * v[i]);
      math.tanh(tmp, tmp, n, 0, 0);
      for (int64_t i = 0; i < n; ++i) v[i] = 0.5f * v[i] * (1.0f + tmp[i]);
      break;
    case Gelu::Quick:
      for (int64_t i = 0; i < n; ++i) tmp[i] = alpha * v[i];
      math.sigmoid(tmp, tmp, n, 0, 0);
      for (int64_t i = 0; i < n; ++i) v[i] *= tmp[i];
      break;
  }
}

// y = act(x + bias (+ skip)): bias is a vector over the last dim (absent: none), skip has x's shape.
Expected<void> biasActivation(KernelContext& ctx, const ContribMath& math, Gelu kind, bool hasAct, size_t biasInput,
                              int skipInput) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  const TensorValue& bias = ctx.input(biasInput);
  const TensorValue& skip = skipInput >= 0 ? ctx.input(size_t(skipInput)) : TensorValue();
  for (size_t i = 0; i < ctx.inputCount(); ++i)
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  const int64_t cols = x.rank() ? x.dim(x.rank() - 1) : 1;
  if (!bias.empty() && (bias.count() != cols || x.rank() == 0))
    return ctx.error("bias " + bias.describe() + " must be a vector over the last dim of " + x.describe(), int(biasInput));
  if (skipInput >= 0 && skip.dims() != x.dims())
    return ctx.error("skip " + skip.describe() + " must have the input's shape " + x.describe(), skipInput);
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  const std::vector<float> b = floatsOf(bias);
  const float alpha = ctx.attrFloat("alpha", 1.702f);
  const size_t bytes = elementBytes(x.dtype());
  const int64_t chunks = (x.count() + kChunk - 1) / kChunk;
  ctx.parallelFor(chunks, 4, [&](int64_t cb, int64_t ce) {
    std::vector<float> v(kChunk), tmp(kChunk);
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t begin = c * kChunk, n = std::min(kChunk, x.count() - begin);
      toFloats(x.dtype(), static_cast<const uint8_t*>(x.raw()) + size_t(begin) * bytes, v.data(), n);
      if (!b.empty()) {
        for (int64_t i = 0; i < n; ++i) v[size_t(i)] += b[size_t((begin + i) % cols)];
      }
      if (!skip.empty()) {
        toFloats(skip.dtype(), static_cast<const uint8_t*>(skip.raw()) + size_t(begin) * elementBytes(skip.dtype()), tmp.data(), n);
        for (int64_t i = 0; i < n; ++i) v[size_t(i)] += tmp[size_t(i)];
      }
      if (hasAct) applyGelu(math, kind, alpha, v.data(), tmp.data(), n);
      fromFloats(x.dtype(), v.data(), static_cast<uint8_t*>((*y)->raw()) + size_t(begin) * bytes, n);
    }
  });
  return {};
}

template <bool Fast>
Expected<void> runGelu(KernelContext& ctx) { return biasActivation(ctx, contribMath<Fast>(), Gelu::Erf, true, 1, -1); }
template <bool Fast>
Expected<void> runFastGelu(KernelContext& ctx) { return biasActivation(ctx, contribMath<Fast>(), Gelu::Tanh, true, 1, -1); }
template <bool Fast>
Expected<void> runQuickGelu(KernelContext& ctx) { return biasActivation(ctx, contribMath<Fast>(), Gelu::Quick, true, 1, -1); }
// Additions only, one variant.
Expected<void> runBiasAdd(KernelContext& ctx) {
  if (!ctx.hasInput(1) || !ctx.hasInput(2)) return ctx.error("BiasAdd needs its bias and skip inputs");
  return biasActivation(ctx, referenceContribMath(), Gelu::Erf, false, 1, 2);
}

// BiasGelu: bias must be present; same as Gelu(A + B) with B over the last dim.
template <bool Fast>
Expected<void> runBiasGelu(KernelContext& ctx) {
  if (!ctx.hasInput(1)) return ctx.error("BiasGelu needs its bias input B");
  return biasActivation(ctx, contribMath<Fast>(), Gelu::Erf, true, 1, -1);
}

// BiasSoftmax: softmax over the dims from `axis` on (flattened, as Softmax before opset 13) of data + bias,
// bias broadcasting to data numpy-style.
template <bool Fast>
Expected<void> runBiasSoftmax(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [x, bias] = *inputs;
  if (!isFloatStorage(x.dtype())) return ctx.unsupportedType(0);
  if (!isFloatStorage(bias.dtype())) return ctx.unsupportedType(1);
  auto axis = normalizeAxis(ctx.attrInt("axis", 1), x.rank());
  if (!axis) return ctx.error("axis is out of range for " + x.describe(), 0);
  auto shape = broadcastShapes({&x.dims(), &bias.dims()});
  if (!shape || *shape != x.dims())
    return ctx.error("bias " + bias.describe() + " does not broadcast to data " + x.describe(), 1);
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  std::vector<float> sum(size_t(x.count())), biasValues = floatsOf(bias);
  toFloats(x.dtype(), x.raw(), sum.data(), x.count());
  const auto strides = broadcastStrides(bias.dims(), x.dims());
  forEachBroadcast(x.dims(), std::array<std::vector<int64_t>, 1>{strides},
                   [&](int64_t out, const std::array<int64_t, 1>& offsets) { sum[size_t(out)] += biasValues[size_t(offsets[0])]; });
  int64_t len = 1;
  for (int64_t d = *axis; d < x.rank(); ++d) len *= x.dim(d);
  if (len > 0 && x.count() > 0) contribMath<Fast>().softmaxRows(sum.data(), sum.data(), x.count() / len, len, false);
  fromFloats(x.dtype(), sum.data(), (*y)->raw(), x.count());
  return {};
}

}  // namespace

void registerContribActivationCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "Gelu", runGelu<false>, runGelu<true>);
  addMicrosoftKernels(registry, "FastGelu", runFastGelu<false>, runFastGelu<true>);
  addMicrosoftKernels(registry, "BiasGelu", runBiasGelu<false>, runBiasGelu<true>);
  addMicrosoftKernels(registry, "QuickGelu", runQuickGelu<false>, runQuickGelu<true>);
  registry.add(microsoftKernel("BiasAdd", runBiasAdd));
  addMicrosoftKernels(registry, "BiasSoftmax", runBiasSoftmax<false>, runBiasSoftmax<true>);
}

}  // namespace onyx::exec::contrib
