// EyeLike (ones on a diagonal) and OneHot (on and off values at the indexed depth).
#include "exec/kernel_util.h"
#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

Expected<void> eyeLikeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  if ((*x)->rank() != 2) return ctx.error("needs a 2-D input, got " + (*x)->describe(), 0);
  DataType dtype = ctx.hasAttr("dtype") ? static_cast<DataType>(ctx.attrInt("dtype", 1)) : (*x)->dtype();
  int64_t k = ctx.attrInt("k", 0);
  auto y = ctx.allocateOutput(0, dtype, (*x)->dims());
  if (!y) return y.error();
  int64_t rows = (*x)->dim(0), cols = (*x)->dim(1);
  bool ok = dispatchType<kNumbers | kBool>(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* dst = (*y)->template data<T>();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        dst[i * cols + j] = fromCompute<T>(ComputeType<T>(j - i == k ? 1 : 0));
  });
  return ok ? Expected<void>()
            : ctx.error("does not support output type " + std::string(dataTypeName(dtype)));
}

Expected<void> oneHotKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& indices = ctx.input(0);
  // depth is a scalar or a 1-element tensor of any numeric type (fuzz audit: an empty one was read past
  // its end).
  if (ctx.input(1).count() != 1)
    return ctx.error(
        "depth must hold one element (a scalar or a 1-element tensor), got " + ctx.input(1).describe(), 1);
  // Saturated: a depth of 1e30 is then a clear size error from allocateOutput, not an undefined conversion.
  const double depthValue = ctx.input(1).doubleAt(0);
  int64_t depth = depthValue >= 9.2e18 ? INT64_MAX : depthValue > 0 ? int64_t(depthValue) : 0;
  const TensorValue& values = ctx.input(2);
  if (depth <= 0 || values.count() != 2) return ctx.error("needs a positive depth and two values", 1);
  int64_t rank = indices.rank() + 1;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", -1), rank);
  if (!axisOpt) return ctx.error("axis is out of range", 0);
  int64_t axis = *axisOpt;
  Dims outDims = indices.dims();
  outDims.insert(outDims.begin() + axis, depth);
  auto y = ctx.allocateOutput(0, values.dtype(), outDims);
  if (!y) return y.error();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= indices.dim(d);
  for (int64_t d = axis; d < indices.rank(); ++d) inner *= indices.dim(d);
  bool ok = dispatchBySize(values.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = values.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t d = 0; d < depth; ++d)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t idx = saturateToInteger<int64_t>(indices.doubleAt(o * inner + i));  // NaN, 2^63
          if (idx < 0) idx += depth;
          dst[(o * depth + d) * inner + i] = idx == d ? v[1] : v[0];
        }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(2);
}

}  // namespace

void registerEyeLikeOneHotCpuKernels(KernelRegistry& r) {
  r.add(kernel("EyeLike", eyeLikeKernel, 9));
  r.add(kernel("OneHot", oneHotKernel, 9));
}

}  // namespace onyx::exec
