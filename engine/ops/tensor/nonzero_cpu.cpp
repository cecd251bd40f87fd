// NonZero: the indices of the non-zero elements, one row per input axis.
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> nonZeroKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  // Counted first, then written straight into the output: detection heads call it per class on thousands
  // of scores that nearly all pass (a growing list of hits and a division per axis took 20 us of 3,234).
  int64_t n = 0;
  bool ok = dispatchType<kNumbers | kBool>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    for (int64_t i = 0; i < x.count(); ++i) n += ComputeType<T>(src[i]) != ComputeType<T>(0);
  });
  if (!ok) return ctx.unsupportedType(0);
  const int64_t rank = x.rank();
  auto y = ctx.allocateOutput(0, DataType::Int64, {rank, n});
  if (!y) return y.error();
  int64_t* dst = (*y)->template data<int64_t>();
  const Dims& dims = x.dims();
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);  // the element's coordinates, counted up
  dispatchType<kNumbers | kBool>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    int64_t j = 0;
    for (int64_t i = 0; i < x.count(); ++i) {
      if (ComputeType<T>(src[i]) != ComputeType<T>(0)) {
        for (int64_t d = 0; d < rank; ++d) dst[d * n + j] = index[size_t(d)];
        ++j;
      }
      for (int64_t d = rank - 1; d >= 0 && ++index[size_t(d)] == dims[size_t(d)]; --d) index[size_t(d)] = 0;
    }
  });
  return {};
}

}  // namespace

void registerNonZeroCpuKernels(KernelRegistry& r) {
  r.add(kernel("NonZero", nonZeroKernel, 9));
}

}  // namespace onyx::exec
