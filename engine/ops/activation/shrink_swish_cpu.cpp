// Shrink and Swish, computed per element in double.
#include <cmath>
#include <limits>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

template <class F>
Expected<void> mapFloat(KernelContext& ctx, F f) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto y = ctx.allocateOutput(0, (*x)->dtype(), (*x)->dims());
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>((*x)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      double v = f(double(ComputeType<T>((*x)->template data<T>()[i])));
      if constexpr (std::is_integral_v<T>) {
        // Saturating, NaN to 0: a NaN or huge lambd or bias made the conversion undefined (fuzz_run, UBSan).
        const double lo = double(std::numeric_limits<T>::lowest()), hi = double(std::numeric_limits<T>::max());
        (*y)->template data<T>()[i] = std::isnan(v) ? T(0)
                                      : v <= lo     ? std::numeric_limits<T>::lowest()
                                      : v >= hi     ? std::numeric_limits<T>::max()
                                                    : T(v);
      } else
        (*y)->template data<T>()[i] = fromCompute<T>(ComputeType<T>(v));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> shrinkKernel(KernelContext& ctx) {
  double lambd = ctx.attrFloat("lambd", 0.5f), bias = ctx.attrFloat("bias", 0.0f);
  return mapFloat(ctx, [=](double v) { return v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0); });
}

Expected<void> swishKernel(KernelContext& ctx) {
  // Swish is defined on floats (fuzz_run: int8 input, a NaN result converted to int8).
  if (auto x = ctx.requireTensor(0); x && !isFloatingPoint((*x)->dtype())) return ctx.unsupportedType(0);
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return mapFloat(ctx, [=](double v) { return v / (1.0 + std::exp(-alpha * v)); });
}

}  // namespace

void registerShrinkSwishCpuKernels(KernelRegistry& r) {
  r.add(kernel("Shrink", shrinkKernel, 9));
  r.add(kernel("Swish", swishKernel, 24));
}

}  // namespace onyx::exec
