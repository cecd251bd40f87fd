// Tile reference kernel: the input repeated along each axis, copied by element size.
#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

Expected<void> tileKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto r = ctx.requireTensor(1);
  if (!r) return r.error();
  const TensorValue& in = **x;
  std::vector<int64_t> repeats = (*r)->toInts();
  if (int64_t(repeats.size()) != in.rank())
    return ctx.error("repeats has " + std::to_string(repeats.size()) + " entries for " + in.describe(), 1);
  Dims outDims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (repeats[size_t(d)] < 0) return ctx.error("repeats must be non-negative", 1);
    // Saturated on overflow: allocateOutput then reports the size instead of allocating a wrapped one.
    outDims.push_back(checkedMul(in.dim(d), repeats[size_t(d)]).value_or(INT64_MAX));
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < (*y)->count(); ++o) {
      int64_t rest = o, off = 0;
      for (int64_t d = in.rank() - 1; d >= 0; --d) {
        int64_t i = rest % outDims[size_t(d)];
        rest /= outDims[size_t(d)];
        off += (i % in.dim(d)) * inStrides[size_t(d)];
      }
      dst[o] = src[off];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerTileCpuKernels(KernelRegistry& r) {
  r.add(kernel("Tile", tileKernel, 6));
}

}  // namespace onyx::exec
