// Unique: the distinct elements (or, with `axis`, the distinct slices along it), sorted or in order of first
// occurrence, with the index of each one's first occurrence, the inverse mapping and the counts.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> uniqueKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  bool sorted = ctx.attrInt("sorted", 1) != 0;
  bool hasAxis = ctx.hasAttr("axis");
  int64_t axis = 0;
  if (hasAxis) {
    auto normalized = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
    if (!normalized) return ctx.error("axis is out of range for " + in.describe(), 0);
    axis = *normalized;
  }
  // View the input as [outer, slices, inner]; a slice is the outer x inner block at one index of the axis.
  int64_t outer = 1, slices = in.count(), inner = 1;
  if (hasAxis) {
    slices = in.dim(axis);
    outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in.dim(d);
    for (int64_t d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
  }
  Expected<void> result;
  bool ok = dispatchType<kNumbers | kBool | kString>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    const T* data = in.template data<T>();
    auto element = [&](int64_t slice, int64_t k) -> const T& {
      return data[(k / inner) * slices * inner + slice * inner + k % inner];
    };
    int64_t sliceSize = outer * inner;
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < sliceSize; ++k) {
        C va = C(element(a, k)), vb = C(element(b, k));
        if (va < vb) return true;
        if (vb < va) return false;
      }
      return false;
    };
    auto equal = [&](int64_t a, int64_t b) { return !less(a, b) && !less(b, a); };
    // Slices in sorted order (stable, so equal slices keep their order and the first is the first seen).
    std::vector<int64_t> order(static_cast<size_t>(slices));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), less);
    std::vector<int64_t> firsts, groupOf(static_cast<size_t>(slices)), counts;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i == 0 || !equal(order[i - 1], order[i])) {
        firsts.push_back(order[i]);
        counts.push_back(0);
      }
      groupOf[size_t(order[i])] = int64_t(firsts.size()) - 1;
      ++counts.back();
    }
    // Output position of each group: sorted order, or order of first occurrence.
    std::vector<int64_t> position(firsts.size());
    std::iota(position.begin(), position.end(), 0);
    if (!sorted) {
      std::vector<int64_t> byFirst(firsts.size());
      std::iota(byFirst.begin(), byFirst.end(), 0);
      std::sort(byFirst.begin(), byFirst.end(),
                [&](int64_t a, int64_t b) { return firsts[size_t(a)] < firsts[size_t(b)]; });
      for (size_t p = 0; p < byFirst.size(); ++p) position[size_t(byFirst[p])] = int64_t(p);
    }
    int64_t unique = int64_t(firsts.size());
    Dims yDims = hasAxis ? in.dims() : Dims{unique};
    if (hasAxis) yDims[size_t(axis)] = unique;
    auto y = ctx.allocateOutput(0, in.dtype(), yDims);
    if (!y) {
      result = y.error();
      return;
    }
    T* out = (*y)->template data<T>();
    for (int64_t g = 0; g < unique; ++g) {
      int64_t p = position[size_t(g)];
      for (int64_t k = 0; k < sliceSize; ++k)
        out[(k / inner) * unique * inner + p * inner + k % inner] = element(firsts[size_t(g)], k);
    }
    auto writeInts = [&](size_t index, int64_t length, auto valueAt) -> Expected<void> {
      if (!ctx.wantsOutput(index)) return {};
      auto t = ctx.allocateOutput(index, DataType::Int64, {length});
      if (!t) return t.error();
      for (int64_t i = 0; i < length; ++i) (*t)->template data<int64_t>()[i] = valueAt(i);
      return {};
    };
    std::vector<int64_t> groupAt(static_cast<size_t>(unique));
    for (int64_t g = 0; g < unique; ++g) groupAt[size_t(position[size_t(g)])] = g;
    auto firstIndices = writeInts(1, unique, [&](int64_t p) { return firsts[size_t(groupAt[size_t(p)])]; });
    if (!firstIndices) {
      result = firstIndices.error();
      return;
    }
    auto inverse = writeInts(2, slices, [&](int64_t s) { return position[size_t(groupOf[size_t(s)])]; });
    if (!inverse) {
      result = inverse.error();
      return;
    }
    auto groupCounts = writeInts(3, unique, [&](int64_t p) { return counts[size_t(groupAt[size_t(p)])]; });
    if (!groupCounts) result = groupCounts.error();
  });
  if (!ok) return ctx.unsupportedType(0);
  return result;
}

}  // namespace

void registerUniqueCpuKernels(KernelRegistry& r) {
  r.add(kernel("Unique", uniqueKernel, 11));
}

}  // namespace onyx::exec
