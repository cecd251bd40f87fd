// Resize (and Upsample) on the CPU: every mode and coordinate transformation of resize_plan.h, any rank,
// numeric types; each output sums one tap per dim over every combination.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "exec/kernel_util.h"
#include "ops/nn/resize_plan.h"

namespace onyx::exec {
namespace {

Expected<void> resizeKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  int64_t rank = x.rank();
  auto plan = planResize(ctx, x);
  if (!plan) return plan.error();
  const Dims& outDims = plan->outDims;
  const auto& taps = plan->taps;
  const double extrapolation = plan->extrapolation;
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(x.dims());
  bool ok = dispatchType<kNumbers>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = (*y)->template data<T>();
    std::vector<int64_t> pos(static_cast<size_t>(rank));
    std::vector<size_t> choice(static_cast<size_t>(rank));
    for (int64_t o = 0; o < (*y)->count(); ++o) {
      int64_t rest = o;
      bool outside = false;
      for (int64_t d = rank - 1; d >= 0; --d) {
        pos[size_t(d)] = rest % outDims[size_t(d)];
        rest /= outDims[size_t(d)];
        outside |= taps[size_t(d)][size_t(pos[size_t(d)])].empty();
      }
      double acc = 0;
      if (outside) {
        acc = extrapolation;
      } else {
        // Sum over one tap per dimension, every combination.
        std::fill(choice.begin(), choice.end(), 0);
        while (true) {
          double weight = 1;
          int64_t off = 0;
          for (int64_t d = 0; d < rank; ++d) {
            const ResizeTap& tap = taps[size_t(d)][size_t(pos[size_t(d)])][choice[size_t(d)]];
            weight *= tap.weight;
            off += tap.index * inStrides[size_t(d)];
          }
          if (weight != 0) acc += weight * double(ComputeType<T>(src[off]));
          int64_t d = rank - 1;
          for (; d >= 0; --d) {
            if (++choice[size_t(d)] < taps[size_t(d)][size_t(pos[size_t(d)])].size()) break;
            choice[size_t(d)] = 0;
          }
          if (d < 0) break;
        }
      }
      if constexpr (std::is_integral_v<T>)
        dst[o] = T(std::llround(std::clamp(acc, double(std::numeric_limits<T>::lowest()),
                                           double(std::numeric_limits<T>::max()))));
      else
        dst[o] = fromCompute<T>(ComputeType<T>(acc));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerResizeCpuKernels(KernelRegistry& r) {
  r.add(kernel("Resize", resizeKernel, 10));
  r.add(kernel("Upsample", resizeKernel, 7));
}

}  // namespace onyx::exec
