// Data-dependent selection: TopK (stable: ties keep the lower index first), NonZero.
#include <algorithm>
#include <numeric>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> topKKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  int64_t k = ctx.opset() < 10 ? ctx.attrInt("k", 0) : (ctx.hasInput(1) ? ctx.input(1).intAt(0) : -1);
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", -1), x.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + x.describe(), 0);
  int64_t axis = *axisOpt, len = x.dim(axis);
  if (k < 0 || k > len)
    return ctx.error("k = " + std::to_string(k) + " is out of range for dim " + std::to_string(len), 1);
  bool largest = ctx.attrInt("largest", 1) != 0;
  bool sorted = ctx.attrInt("sorted", 1) != 0;
  (void)sorted;  // results are always sorted, which "unsorted" permits
  Dims outDims = x.dims();
  outDims[size_t(axis)] = k;
  auto values = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!values) return values.error();
  auto indices = ctx.allocateOutput(1, DataType::Int64, outDims);
  if (!indices) return indices.error();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
  bool ok = dispatchType<kNumbers>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    const T* src = x.data<T>();
    T* dv = (*values)->template data<T>();
    int64_t* di = (*indices)->template data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(len));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t j) { return Cm(src[(o * len + j) * inner + i]); };
        std::iota(order.begin(), order.end(), 0);
        auto cmp = [&](int64_t a, int64_t b) {
          Cm va = at(a), vb = at(b);
          if (va != vb) return largest ? va > vb : va < vb;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), cmp);
        for (int64_t j = 0; j < k; ++j) {
          dv[(o * k + j) * inner + i] = src[(o * len + order[size_t(j)]) * inner + i];
          di[(o * k + j) * inner + i] = order[size_t(j)];
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

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

void registerSelectCpuKernels(KernelRegistry& r) {
  r.add(kernel("TopK", topKKernel, 1));
  r.add(kernel("NonZero", nonZeroKernel, 9));
}

}  // namespace onyx::exec
