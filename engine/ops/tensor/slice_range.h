#pragma once
// ONNX Slice's clamping of [start, end) with a step along one dim, shared by the kernels (slice_cpu.cpp) and
// shape inference (slicing_shapes.cpp) so that both agree on every corner: negative bounds count from the
// end, bounds past the dim are clamped, a negative step walks down from start.
#include <algorithm>
#include <cstdint>

namespace onyx::exec {

struct SliceRange {
  int64_t first = 0;  // the first index taken
  int64_t count = 0;  // how many
};

// `step` is not 0 (the callers report it); `dim` is not negative.
inline SliceRange sliceRange(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, end > start ? (end - start - 1) / step + 1 : 0};  // end - start + step - 1 overflows at INT64_MAX
  }
  if (dim == 0) return {0, 0};  // std::clamp(start, 0, -1) is undefined, and in other libraries it read src[0]
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  const int64_t back = step == INT64_MIN ? INT64_MAX : -step;  // -INT64_MIN overflows; either takes one element
  return {start, start > end ? (start - end - 1) / back + 1 : 0};
}

}  // namespace onyx::exec
