// NonZero: the indices of the non-zero elements, one row per input axis.
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> nonZeroKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  std::vector<int64_t> hits;
  bool ok = dispatchType<kNumbers | kBool>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    for (int64_t i = 0; i < x.count(); ++i)
      if (ComputeType<T>(src[i]) != ComputeType<T>(0)) hits.push_back(i);
  });
  if (!ok) return ctx.unsupportedType(0);
  int64_t rank = x.rank();
  int64_t n = int64_t(hits.size());
  auto y = ctx.allocateOutput(0, DataType::Int64, {rank, n});
  if (!y) return y.error();
  int64_t* dst = (*y)->template data<int64_t>();
  for (int64_t j = 0; j < n; ++j) {
    int64_t rest = hits[size_t(j)];
    for (int64_t d = rank - 1; d >= 0; --d) {
      dst[d * n + j] = rest % x.dim(d);
      rest /= x.dim(d);
    }
  }
  return {};
}

}  // namespace

void registerNonZeroCpuKernels(KernelRegistry& r) {
  r.add(kernel("NonZero", nonZeroKernel, 9));
}

}  // namespace onyx::exec
