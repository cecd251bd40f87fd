// CumSum and CumProd along an axis: inclusive or exclusive, forward or reversed.
#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"

namespace onyx::exec {
namespace {

// CumSum and CumProd share the scan; `product` picks the combining operation and its identity.
Expected<void> cumulativeKernel(KernelContext& ctx, bool product) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto axisT = ctx.requireTensor(1);
  if (!axisT) return axisT.error();
  const TensorValue& in = **x;
  // axis is a scalar int32 or int64 (fuzz audit: an empty axis tensor was read past its end).
  const DataType axisType = (*axisT)->dtype();
  if ((*axisT)->count() != 1 || (axisType != DataType::Int64 && axisType != DataType::Int32))
    return ctx.error("axis must be a scalar int32 or int64, got " + (*axisT)->describe(), 1);
  auto axisOpt = normalizeAxis((*axisT)->intAt(0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range", 1);
  bool exclusive = ctx.attrInt("exclusive", 0) != 0, reverse = ctx.attrInt("reverse", 0) != 0;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  const auto [outerBound, lenBound, innerBound] = axisSplit(in.dims(), *axisOpt);
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& outer = outerBound; const auto& len = lenBound; const auto& inner = innerBound;
  bool ok = dispatchType<kNumbers>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        Cm acc = product ? Cm(1) : Cm(0);
        auto combine = [&](Cm a, Cm b) { return product ? wrappingMul(a, b) : wrappingAdd(a, b); };  // ints wrap
        for (int64_t s = 0; s < len; ++s) {
          int64_t k = reverse ? len - 1 - s : s;
          int64_t at = (o * len + k) * inner + i;
          if (exclusive) {
            dst[at] = fromCompute<T>(acc);
            acc = combine(acc, Cm(src[at]));
          } else {
            acc = combine(acc, Cm(src[at]));
            dst[at] = fromCompute<T>(acc);
          }
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> cumSumKernel(KernelContext& ctx) {
  return cumulativeKernel(ctx, false);
}
Expected<void> cumProdKernel(KernelContext& ctx) {
  return cumulativeKernel(ctx, true);
}

}  // namespace

void registerCumulativeCpuKernels(KernelRegistry& r) {
  r.add(kernel("CumSum", cumSumKernel, 11));
  r.add(kernel("CumProd", cumProdKernel, 26));
}

}  // namespace onyx::exec
