// Trilu reference kernel: the upper or lower triangle of the last two axes, the rest zeroed.
#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

Expected<void> triluKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() < 2) return ctx.error("needs rank >= 2, got " + in.describe(), 0);
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    // k is a scalar int64 (fuzz audit: an empty k was read past its end).
    const TensorValue& kt = ctx.input(1);
    if (kt.count() != 1 || (kt.dtype() != DataType::Int64 && kt.dtype() != DataType::Int32))
      return ctx.error("k must be a scalar int64, got " + describeValue(ctx.inputValue(1)), 1);
    k = kt.intAt(0);
  }
  bool upper = ctx.attrInt("upper", 1) != 0;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
  // Past rows + cols every k keeps the same columns: clamped so that i + k cannot overflow (a k near
  // INT64_MAX). With elements, rows and cols are at most the count, so their sum cannot overflow either.
  const int64_t reach = in.count() ? rows + cols : 0;
  k = std::clamp(k, -reach, reach);
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    // Row by row: the kept columns are one range, j - i >= k (upper) or j - i <= k (lower).
    const int64_t matrixRows = in.count() / std::max<int64_t>(cols, 1);
    for (int64_t r = 0; r < matrixRows; ++r) {
      const int64_t i = r % std::max<int64_t>(rows, 1);
      const int64_t from = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
      const int64_t to = upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
      const T* in = src + r * cols;
      T* out = dst + r * cols;
      const int64_t end = std::max(from, to);
      for (int64_t j = 0; j < cols; ++j) out[j] = j >= from && j < end ? in[j] : T{};
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerTriluCpuKernels(KernelRegistry& r) {
  r.add(kernel("Trilu", triluKernel, 14));
}

}  // namespace onyx::exec
