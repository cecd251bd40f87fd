// Normalization: BatchNormalization (inference), LayerNormalization, InstanceNormalization. Rows are
// normalised in parallel; float32 rows use single-pass loops.
#include <cmath>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> batchNormKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 5; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& x = ctx.input(0);
  if (x.rank() < 2) return ctx.error("needs rank >= 2, got " + x.describe(), 0);
  float eps = ctx.attrFloat("epsilon", 1e-5f);
  int64_t n = x.dim(0), c = x.dim(1), inner = x.count() / std::max<int64_t>(n * c, 1);
  for (size_t i = 1; i < 5; ++i)
    if (ctx.input(i).count() != c)
      return ctx.error("parameter has " + std::to_string(ctx.input(i).count()) + " values for " +
                           std::to_string(c) + " channels",
                       int(i));
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<float> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
    for (int64_t k = 0; k < c; ++k) {
      double s = ctx.input(1).doubleAt(k) / std::sqrt(ctx.input(4).doubleAt(k) + eps);
      scale[size_t(k)] = float(s);
      shift[size_t(k)] = float(ctx.input(2).doubleAt(k) - ctx.input(3).doubleAt(k) * s);
    }
    const T* src = x.data<T>();
    T* dst = (*y)->template data<T>();
    ctx.parallelFor(n * c, 1, [&](int64_t b, int64_t e) {
      for (int64_t nc = b; nc < e; ++nc) {
        float s = scale[size_t(nc % c)], t = shift[size_t(nc % c)];
        for (int64_t i = 0; i < inner; ++i)
          dst[nc * inner + i] = fromCompute<T>(ComputeType<T>(float(src[nc * inner + i]) * s + t));
      }
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> layerNormKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  auto scales = ctx.requireTensor(1);
  if (!scales) return scales.error();
  const TensorValue& x = **xs;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", -1), x.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + x.describe(), 0);
  float eps = ctx.attrFloat("epsilon", 1e-5f);
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < *axisOpt; ++d) rows *= x.dim(d);
  for (int64_t d = *axisOpt; d < x.rank(); ++d) cols *= x.dim(d);
  const TensorValue& scale = **scales;
  const TensorValue& bias = ctx.input(2);
  if (scale.count() != cols && scale.count() != 1)
    return ctx.error(
        "scale " + scale.describe() + " does not match the normalized size " + std::to_string(cols), 1);
  // The bias is read by normalized element as the scale is (fuzz_run: a shorter bias read past its end).
  if (!bias.empty() && bias.count() != cols && bias.count() != 1)
    return ctx.error("bias " + bias.describe() + " does not match the normalized size " + std::to_string(cols), 2);
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  Dims statDims = x.dims();
  for (int64_t d = *axisOpt; d < x.rank(); ++d) statDims[size_t(d)] = 1;
  TensorValue* meanOut = nullptr;
  TensorValue* invOut = nullptr;
  if (ctx.wantsOutput(1)) {
    auto m = ctx.allocateOutput(1, DataType::Float, statDims);
    if (!m) return m.error();
    meanOut = *m;
  }
  if (ctx.wantsOutput(2)) {
    auto v = ctx.allocateOutput(2, DataType::Float, statDims);
    if (!v) return v.error();
    invOut = *v;
  }
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<float> g(static_cast<size_t>(cols)), b(static_cast<size_t>(cols), 0.0f);
    for (int64_t i = 0; i < cols; ++i) {
      g[size_t(i)] = float(scale.doubleAt(scale.count() == 1 ? 0 : i));
      if (!bias.empty()) b[size_t(i)] = float(bias.doubleAt(bias.count() == 1 ? 0 : i));
    }
    const T* src = x.data<T>();
    T* dst = (*y)->template data<T>();
    ctx.parallelFor(rows, 4, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const T* p = src + r * cols;
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < cols; ++i) {
          double v = double(ComputeType<T>(p[i]));
          sum += v;
          sq += v * v;
        }
        double mean = sum / double(cols);
        double var = std::max(0.0, sq / double(cols) - mean * mean);
        float inv = float(1.0 / std::sqrt(var + eps));
        float m = float(mean);
        T* q = dst + r * cols;
        for (int64_t i = 0; i < cols; ++i)
          q[i] = fromCompute<T>(
              ComputeType<T>((float(ComputeType<T>(p[i])) - m) * inv * g[size_t(i)] + b[size_t(i)]));
        if (meanOut) meanOut->data<float>()[r] = m;
        if (invOut) invOut->data<float>()[r] = inv;
      }
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> instanceNormKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& x = ctx.input(0);
  if (x.rank() < 2) return ctx.error("needs rank >= 2", 0);
  float eps = ctx.attrFloat("epsilon", 1e-5f);
  int64_t n = x.dim(0), c = x.dim(1), inner = x.count() / std::max<int64_t>(n * c, 1);
  // One scale and one bias per channel: fewer were read past their end.
  for (size_t i = 1; i < 3; ++i)
    if (ctx.input(i).count() != c)
      return ctx.error((i == 1 ? "scale " : "B ") + ctx.input(i).describe() + " does not have one value for each of the " +
                           std::to_string(c) + " channels of " + x.describe(),
                       int(i));
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t nc = 0; nc < n * c; ++nc) {
      double sum = 0, sq = 0;
      for (int64_t i = 0; i < inner; ++i) {
        double v = double(ComputeType<T>(src[nc * inner + i]));
        sum += v;
        sq += v * v;
      }
      double mean = sum / double(inner), var = std::max(0.0, sq / double(inner) - mean * mean);
      double s = ctx.input(1).doubleAt(nc % c) / std::sqrt(var + eps), b = ctx.input(2).doubleAt(nc % c);
      for (int64_t i = 0; i < inner; ++i)
        dst[nc * inner + i] =
            fromCompute<T>(ComputeType<T>((double(ComputeType<T>(src[nc * inner + i])) - mean) * s + b));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerNormCpuKernels(KernelRegistry& r) {
  r.add(kernel("BatchNormalization", batchNormKernel, 1));
  r.add(kernel("LayerNormalization", layerNormKernel, 17));
  r.add(kernel("InstanceNormalization", instanceNormKernel, 1));
}

}  // namespace onyx::exec
