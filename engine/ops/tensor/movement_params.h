#pragma once
// Parameters of data-movement ops resolved against the input, shared by the reference kernels and the fast
// variants: Slice's starts, ends, axes and steps (attributes before opset 10, inputs after: slice_cpu.cpp),
// Transpose's perm (default: reversed, negative entries allowed: transpose_cpu.cpp), and the element offset
// GatherElements reads and ScatterElements writes (gather_cpu.cpp).
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

struct SliceBounds {
  std::vector<int64_t> begin, step;  // per input axis
  Dims outDims;
};

Expected<SliceBounds> sliceBounds(const KernelContext& ctx, const TensorValue& in);
Expected<std::vector<int64_t>> transposePerm(const KernelContext& ctx, const TensorValue& in);

// Offset into a tensor with `strides` of element `o` of an index tensor with dims `indexDims`, whose
// coordinate along `axis` is replaced by `index`. An index outside [-len, len) sets `bad` and reads element
// 0 of that axis.
int64_t elementOffsetAlongAxis(int64_t o, const std::vector<int64_t>& indexDims, const std::vector<int64_t>& strides,
                               int64_t axis, int64_t index, int64_t len, bool& bad);
// Whether GatherElements' or ScatterElements' indices have the data's rank and fit inside the data in every
// dim but `axis`, as elementOffsetAlongAxis assumes (ONNX Runtime refuses the same shapes).
bool indexShapeFitsData(const std::vector<int64_t>& indexDims, const std::vector<int64_t>& dataDims, int64_t axis);
// The same as the error the reference kernels give, naming input 1.
Expected<void> requireIndexShapeFitsData(const KernelContext& ctx, const TensorValue& indices, const TensorValue& data,
                                         int64_t axis);

}  // namespace onyx::exec
