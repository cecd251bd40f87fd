#include "exec/kernel_util.h"

namespace onyx::exec {

std::optional<Dims> broadcastShapes(const std::vector<const Dims*>& shapes) {
  size_t rank = 0;
  for (const Dims* s : shapes) rank = std::max(rank, s->size());
  Dims out(rank, 1);
  for (const Dims* s : shapes) {
    size_t offset = rank - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[i];
      int64_t& o = out[offset + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      return std::nullopt;
    }
  }
  return out;
}

std::vector<int64_t> rowMajorStrides(const Dims& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

std::vector<int64_t> broadcastStrides(const Dims& dims, const Dims& outDims) {
  std::vector<int64_t> own = rowMajorStrides(dims);
  std::vector<int64_t> out(outDims.size(), 0);
  size_t offset = outDims.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) out[offset + i] = dims[i] == 1 ? 0 : own[i];
  return out;
}

std::optional<std::vector<int64_t>> resolvePerm(std::vector<int64_t> perm, int64_t rank) {
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
  if (int64_t(perm.size()) != rank) return std::nullopt;
  std::vector<bool> seen(size_t(rank), false);
  for (int64_t& p : perm) {
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[size_t(p)]) return std::nullopt;
    seen[size_t(p)] = true;
  }
  return perm;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

AxisSplit axisSplit(const Dims& dims, int64_t axis) {
  AxisSplit split;
  const int64_t rank = int64_t(dims.size());
  for (int64_t d = 0; d < axis && d < rank; ++d) split.outer *= dims[size_t(d)];
  if (axis < rank) split.len = dims[size_t(axis)];
  for (int64_t d = axis + 1; d < rank; ++d) split.inner *= dims[size_t(d)];
  return split;
}

}  // namespace onyx::exec
