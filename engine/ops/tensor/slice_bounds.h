#pragma once
// Slice's starts, ends, axes and steps (attributes before opset 10, inputs after) resolved against the
// input's dims: shared by the reference kernel and the fast variant.
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

struct SliceBounds {
  std::vector<int64_t> begin, step;  // per input axis
  Dims outDims;
};

Expected<SliceBounds> sliceBounds(const KernelContext& ctx, const TensorValue& in);

}  // namespace onyx::exec
