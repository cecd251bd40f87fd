// TopK: the k largest (or smallest) values along an axis and their indices; stable: ties keep the lower
// index first. NaN ranks above every number.
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "exec/kernel_util.h"
#include "util/ordered_float.h"

namespace onyx::exec {
namespace {

Expected<void> topKKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  int64_t k = ctx.attrInt("k", 0);
  if (ctx.opset() >= 10) {
    // K is a 1-D tensor of one int64 (fuzz audit: an empty K was read past its end).
    auto kt = ctx.requireTensor(1);
    if (!kt) return kt.error();
    const DataType kType = (*kt)->dtype();
    if ((*kt)->count() != 1 || (kType != DataType::Int64 && kType != DataType::Int32))
      return ctx.error("K must be a 1-D tensor of one int64, got " + (*kt)->describe(), 1);
    k = (*kt)->intAt(0);
  }
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
  const AxisSplit split = axisSplit(x.dims(), axis);
  const int64_t outer = split.outer, inner = split.inner;
  bool ok = dispatchType<kNumbers>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    const T* src = x.data<T>();
    T* dv = (*values)->template data<T>();
    int64_t* di = (*indices)->template data<int64_t>();
    // A total order, as the algorithms need: NaN ranks above every number (first when largest, last when
    // smallest, as torch.topk), ties go to the lower index.
    auto before = [&](const std::pair<Cm, int64_t>& a, const std::pair<Cm, int64_t>& b) {
      if constexpr (std::is_floating_point_v<Cm>) {
        const bool nanA = std::isnan(a.first), nanB = std::isnan(b.first);
        if (nanA || nanB) return nanA != nanB ? (largest ? nanA : nanB) : a.second < b.second;
      }
      if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
      return a.second < b.second;
    };
    // Float values under 2^32 positions select on one integer per element instead (scoreRankKey,
    // util/ordered_float.h: NaN above all, ties to the lower position). The same total order, at a third of
    // the pairs' time (ssdlite's 300 of 3,233 scores per class).
    std::vector<uint64_t> keys;
    if constexpr (std::is_same_v<Cm, float>) {
      if (len < (int64_t(1) << 32)) {
        keys.resize(size_t(len));
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            for (int64_t j = 0; j < len; ++j)
              keys[size_t(j)] = scoreRankKey(Cm(src[(o * len + j) * inner + i]), uint32_t(j), largest);
            auto select = [&](auto order) {
              if (k < len) std::nth_element(keys.begin(), keys.begin() + k, keys.end(), order);
              std::sort(keys.begin(), keys.begin() + k, order);
            };
            if (largest) select(std::greater<uint64_t>());
            else select(std::less<uint64_t>());
            for (int64_t j = 0; j < k; ++j) {
              const int64_t at = scoreRankPosition(keys[size_t(j)], largest);
              dv[(o * k + j) * inner + i] = src[(o * len + at) * inner + i];
              di[(o * k + j) * inner + i] = at;
            }
          }
        return;
      }
    }
    // Other types: (value, index) pairs side by side, so the comparisons read one contiguous array, not the
    // strided input.
    std::vector<std::pair<Cm, int64_t>> items(static_cast<size_t>(len));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t j = 0; j < len; ++j) items[size_t(j)] = {Cm(src[(o * len + j) * inner + i]), j};
        // The k first, then those k sorted: linear in len plus k log k, where partial_sort's heap took
        // len log k (detection heads: 1000 of 19125 scores).
        if (k < len) std::nth_element(items.begin(), items.begin() + k, items.end(), before);
        std::sort(items.begin(), items.begin() + k, before);
        for (int64_t j = 0; j < k; ++j) {
          dv[(o * k + j) * inner + i] = src[(o * len + items[size_t(j)].second) * inner + i];
          di[(o * k + j) * inner + i] = items[size_t(j)].second;
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerTopKCpuKernels(KernelRegistry& r) {
  r.add(kernel("TopK", topKKernel, 1));
}

}  // namespace onyx::exec
