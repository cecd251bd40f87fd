#include "exec/elementwise.h"

#include <algorithm>

namespace onyx::exec {

std::optional<BinaryLayout> binaryLayout(const Dims& a, const Dims& b) {
  auto out = broadcastShapes({&a, &b});
  if (!out) return std::nullopt;
  BinaryLayout l;
  l.outDims = *out;
  size_t rank = out->size();
  auto sa = broadcastStrides(a, *out);
  auto sb = broadcastStrides(b, *out);
  // Merge dims (dropping size-1 ones) while each input keeps one pattern: contiguous or broadcast.
  struct Merged {
    int64_t size;
    bool bcastA, bcastB;
    int64_t strideA, strideB;  // of the merged dim's innermost element
  };
  std::vector<Merged> merged;
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = (*out)[d];
    if (n == 1) continue;
    bool ba = sa[d] == 0, bb = sb[d] == 0;
    if (!merged.empty() && merged.back().bcastA == ba && merged.back().bcastB == bb) {
      merged.back().size *= n;
      merged.back().strideA = sa[d];
      merged.back().strideB = sb[d];
    } else {
      merged.push_back({n, ba, bb, sa[d], sb[d]});
    }
  }
  if (merged.empty()) {
    l.inner = elementCount(*out) ? 1 : 0;
    l.strideA = l.strideB = 0;
    l.outerCount = 1;
    if (elementCount(*out) == 0) l.outerCount = 0;
    return l;
  }
  l.inner = merged.back().size;
  l.strideA = merged.back().bcastA ? 0 : 1;
  l.strideB = merged.back().bcastB ? 0 : 1;
  for (size_t i = 0; i + 1 < merged.size(); ++i) {
    l.outer.push_back(merged[i].size);
    l.outerStrideA.push_back(merged[i].strideA);
    l.outerStrideB.push_back(merged[i].strideB);
    l.outerCount *= merged[i].size;
  }
  if (elementCount(*out) == 0) l.outerCount = 0;
  return l;
}

void arithLoop(const KernelContext& ctx, const BinaryLayout& l, Arith op, const float* a, const float* b, float* y) {
  const int64_t inner = l.inner;
  const bool hasOuter = !l.outer.empty();
  const int64_t runRows = hasOuter ? l.outer.back() : 1;
  const int64_t runStrideA = hasOuter ? l.outerStrideA.back() : 0;
  const int64_t runStrideB = hasOuter ? l.outerStrideB.back() : 0;
  auto rows = [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end;) {
      int64_t offA, offB;
      outerRowOffsets(l, o, offA, offB);
      const int64_t count = std::min(end - o, runRows - o % runRows);
      fastArithRows(op, {a + offA, b + offB, y + o * inner, count, inner, runStrideA, runStrideB, l.strideA != 0,
                         l.strideB != 0});
      o += count;
    }
  };
  if (const int64_t grain = binaryRowGrain(l))
    ctx.parallelFor(l.outerCount, grain, rows);
  else
    rows(0, l.outerCount);
}

}  // namespace onyx::exec
