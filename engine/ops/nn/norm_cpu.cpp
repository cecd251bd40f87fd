// Normalization and softmax: BatchNormalization (inference), LayerNormalization, InstanceNormalization,
// Softmax, LogSoftmax, Hardmax. Rows are normalised in parallel; float32 rows use single-pass loops.
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

enum class SoftKind { Softmax, LogSoftmax, Hardmax };

template <SoftKind K>
Expected<void> softmaxKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  int64_t rank = x.rank();
  bool legacy = ctx.opset() < 13;  // before 13: flatten to 2-D at axis (default 1)
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", legacy ? 1 : -1), std::max<int64_t>(rank, 1));
  if (!axisOpt) return ctx.error("axis is out of range for " + x.describe(), 0);
  int64_t axis = *axisOpt;
  int64_t outer = 1, len = 1, inner = 1;
  if (legacy) {
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis; d < rank; ++d) len *= x.dim(d);
  } else if (rank > 0) {
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    len = x.dim(axis);
    for (int64_t d = axis + 1; d < rank; ++d) inner *= x.dim(d);
  }
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = (*y)->template data<T>();
    ctx.parallelFor(outer * inner, 4, [&](int64_t b, int64_t e) {
      std::vector<float> buf(static_cast<size_t>(len));
      for (int64_t oi = b; oi < e; ++oi) {
        int64_t o = oi / inner, i = oi % inner;
        const T* p = src + o * len * inner + i;
        T* q = dst + o * len * inner + i;
        float mx = -INFINITY;
        int64_t arg = 0;
        for (int64_t k = 0; k < len; ++k) {
          buf[size_t(k)] = float(ComputeType<T>(p[k * inner]));
          if (buf[size_t(k)] > mx) {
            mx = buf[size_t(k)];
            arg = k;
          }
        }
        if constexpr (K == SoftKind::Hardmax) {
          for (int64_t k = 0; k < len; ++k)
            q[k * inner] = fromCompute<T>(ComputeType<T>(k == arg ? 1.0f : 0.0f));
        } else {
          float sum = 0;
          for (int64_t k = 0; k < len; ++k) {
            buf[size_t(k)] = std::exp(buf[size_t(k)] - mx);
            sum += buf[size_t(k)];
          }
          if constexpr (K == SoftKind::Softmax) {
            float inv = 1.0f / sum;
            for (int64_t k = 0; k < len; ++k)
              q[k * inner] = fromCompute<T>(ComputeType<T>(buf[size_t(k)] * inv));
          } else {
            float logSum = std::log(sum);
            for (int64_t k = 0; k < len; ++k)
              q[k * inner] =
                  fromCompute<T>(ComputeType<T>(float(ComputeType<T>(p[k * inner])) - mx - logSum));
          }
        }
      }
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerNormCpuKernels(KernelRegistry& r) {
  r.add(kernel("BatchNormalization", batchNormKernel, 1));
  r.add(kernel("LayerNormalization", layerNormKernel, 17));
  r.add(kernel("InstanceNormalization", instanceNormKernel, 1));
  r.add(kernel("Softmax", softmaxKernel<SoftKind::Softmax>, 1));
  r.add(kernel("LogSoftmax", softmaxKernel<SoftKind::LogSoftmax>, 1));
  r.add(kernel("Hardmax", softmaxKernel<SoftKind::Hardmax>, 1));
}

}  // namespace onyx::exec
