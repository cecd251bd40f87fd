#pragma once
// Parameters of data-movement ops resolved against the input, shared by the reference kernels
// (movement_cpu.cpp) and the fast variants: Slice's starts, ends, axes and steps (attributes before opset
// 10, inputs after), and Transpose's perm (default: reversed, negative entries allowed).
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

struct SliceBounds {
  std::vector<int64_t> begin, step;  // per input axis
  Dims outDims;
};

Expected<SliceBounds> sliceBounds(const KernelContext& ctx, const TensorValue& in);
Expected<std::vector<int64_t>> transposePerm(const KernelContext& ctx, const TensorValue& in);

}  // namespace onyx::exec
