// Pad reference kernel: constant, edge, reflect and wrap modes, pads and axes from attributes or inputs.
#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"
#include "util/clamp_or_zero.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

Expected<void> padKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  std::vector<int64_t> pads;
  std::string mode = ctx.attrString("mode", "constant");
  // Any other mode would leave an index outside the input below (a read past the tensor).
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap")
    return ctx.error("mode '" + mode + "' is none of constant, edge, reflect, wrap");
  double constant = 0;
  std::vector<int64_t> axes;
  if (ctx.opset() < 11) {
    pads = ctx.attrInts("pads").value_or(ctx.attrInts("paddings").value_or(std::vector<int64_t>{}));
    constant = ctx.attrFloat("value", 0);
  } else {
    pads = ctx.intsInput(1).value_or(std::vector<int64_t>{});
    if (ctx.hasInput(2) && ctx.input(2).count() > 0) constant = ctx.input(2).doubleAt(0);
    axes = ctx.intsInput(3).value_or(std::vector<int64_t>{});
  }
  std::vector<int64_t> before(size_t(rank), 0), after(static_cast<size_t>(rank), 0);
  if (axes.empty()) {
    if (int64_t(pads.size()) != 2 * rank)
      return ctx.error("pads has " + std::to_string(pads.size()) + " entries for " + in.describe(), 1);
    for (int64_t d = 0; d < rank; ++d) {
      before[size_t(d)] = pads[size_t(d)];
      after[size_t(d)] = pads[size_t(d + rank)];
    }
  } else {
    int64_t n = int64_t(axes.size());
    if (int64_t(pads.size()) != 2 * n) return ctx.error("pads does not match axes", 1);
    for (int64_t i = 0; i < n; ++i) {
      auto a = normalizeAxis(axes[size_t(i)], rank);
      if (!a) return ctx.error("axis out of range", 3);
      before[size_t(*a)] = pads[size_t(i)];
      after[size_t(*a)] = pads[size_t(i + n)];
    }
  }
  Dims outDims;
  for (int64_t d = 0; d < rank; ++d) {
    // Saturated on overflow: allocateOutput then reports the size instead of allocating a wrapped one.
    // A negative pad crops; one past the axis's own length (INT64_MIN, made up by a larger pad on the other
    // side) would make the index arithmetic below overflow.
    if (before[size_t(d)] < -in.dim(d) || after[size_t(d)] < -in.dim(d))
      return ctx.error("pads crop " + std::to_string(std::min(before[size_t(d)], after[size_t(d)])) + " from axis " +
                           std::to_string(d) + " of " + in.describe() + ", which is shorter",
                       1);
    auto sum = checkedAdd(in.dim(d), before[size_t(d)]);
    int64_t n = sum ? checkedAdd(*sum, after[size_t(d)]).value_or(INT64_MAX) : INT64_MAX;
    if (n < 0) return ctx.error("pads make a negative dim", 1);
    outDims.push_back(n);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  bool ok = dispatchType<kNumbers | kBool>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    T fill;  // the constant is any double a file gives (NaN, 1e30), converted without overflow
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      fill = saturateToInteger<T>(constant);
    else
      fill = fromCompute<T>(ComputeType<T>(constant));
    for (int64_t o = 0; o < (*y)->count(); ++o) {
      int64_t rest = o, off = 0;
      bool outside = false;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t i = rest % outDims[size_t(d)] - before[size_t(d)];
        rest /= outDims[size_t(d)];
        int64_t n = in.dim(d);
        if (i < 0 || i >= n) {
          if (mode == "constant" || n == 0) {
            outside = true;
          } else if (mode == "edge") {
            i = std::clamp<int64_t>(i, 0, n - 1);
          } else if (mode == "reflect") {
            int64_t period = std::max<int64_t>(2 * (n - 1), 1);
            i = ((i % period) + period) % period;
            if (i >= n) i = period - i;
          } else if (mode == "wrap") {
            i = ((i % n) + n) % n;
          }
        }
        off += i * inStrides[size_t(d)];
      }
      dst[o] = outside ? fill : src[off];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerPadCpuKernels(KernelRegistry& r) {
  r.add(kernel("Pad", padKernel, 1));
}

}  // namespace onyx::exec
