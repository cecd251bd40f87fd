// Softmax, LogSoftmax and Hardmax reference kernels: per row along the axis (before opset 13, the tensor
// flattened to 2-D at the axis), in float. The float32 last-axis case has a fast variant beside it
// (softmax_fast_cpu.cpp); the Vulkan kernel shares the normalizations' shader (norm_vulkan.cpp).
#include <cmath>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

enum class SoftKind { Softmax, LogSoftmax, Hardmax };

template <SoftKind K>
Expected<void> softmaxKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  const int64_t rank = x.rank();
  bool legacy = ctx.opset() < 13;  // before 13: flatten to 2-D at axis (default 1)
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", legacy ? 1 : -1), std::max<int64_t>(rank, 1));
  if (!axisOpt) return ctx.error("axis is out of range for " + x.describe(), 0);
  int64_t axis = *axisOpt;
  const AxisSplit split = axisSplit(x.dims(), axis);
  const int64_t outer = split.outer;
  const int64_t len = legacy ? split.len * split.inner : split.len;
  const int64_t inner = legacy ? 1 : split.inner;
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

void registerSoftmaxCpuKernels(KernelRegistry& r) {
  r.add(kernel("Softmax", softmaxKernel<SoftKind::Softmax>, 1));
  r.add(kernel("LogSoftmax", softmaxKernel<SoftKind::LogSoftmax>, 1));
  r.add(kernel("Hardmax", softmaxKernel<SoftKind::Hardmax>, 1));
}

}  // namespace onyx::exec
