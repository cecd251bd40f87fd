// Compress: the slices (or, without an axis, the elements) whose condition is true.
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> compressKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto c = ctx.requireTensor(1);
  if (!c) return c.error();
  const TensorValue& in = **x;
  TensorValue flat = in;
  int64_t axis;
  if (ctx.hasAttr("axis")) {
    auto a = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
    if (!a) return ctx.error("axis is out of range", 0);
    axis = *a;
  } else {
    flat = in.reshaped({in.count()});
    axis = 0;
  }
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < std::min((*c)->count(), flat.dim(axis)); ++i)
    if ((*c)->intAt(i)) keep.push_back(i);
  Dims outDims = flat.dims();
  outDims[size_t(axis)] = int64_t(keep.size());
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  const auto [outerBound, lenBound, innerBound] = axisSplit(flat.dims(), axis);
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& outer = outerBound; const auto& len = lenBound; const auto& inner = innerBound;
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = flat.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t k = int64_t(keep.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < inner; ++i)
          dst[(o * k + j) * inner + i] = src[(o * len + keep[size_t(j)]) * inner + i];
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerCompressCpuKernels(KernelRegistry& r) {
  r.add(kernel("Compress", compressKernel, 9));
}

}  // namespace onyx::exec
