// SwiGLU (opset 28): y = a * sigmoid(alpha * a) * b, the gated SiLU of transformer feed-forward blocks.
#include <cmath>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> runSwiGlu(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(1);
  if (!b) return b.error();
  if ((*a)->dims() != (*b)->dims() || (*a)->dtype() != (*b)->dtype())
    return ctx.error(
        "gate " + (*b)->describe() + " must have the type and shape of input " + (*a)->describe(), 1);
  auto y = ctx.allocateOutput(0, (*a)->dtype(), (*a)->dims());
  if (!y) return y.error();
  const float alpha = ctx.attrFloat("alpha", 1.0f);
  bool ok = dispatchType<kFloats>((*a)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    const T* in = (*a)->template data<T>();
    const T* gate = (*b)->template data<T>();
    T* out = (*y)->template data<T>();
    ctx.parallelFor((*a)->count(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const C v = C(in[i]);
        out[i] = fromCompute<T>(v / (C(1) + std::exp(-C(alpha) * v)) * C(gate[i]));
      }
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerSwiGluCpuKernels(KernelRegistry& registry) {
  KernelDef def = kernel("SwiGLU", runSwiGlu, 28);
  def.inPlace = {{0, 0}};
  registry.add(std::move(def));
}

}  // namespace onyx::exec
