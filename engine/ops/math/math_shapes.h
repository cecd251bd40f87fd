#pragma once
// Shape functions of the math family that other families build on.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx::math_shapes {

// A matrix product's output [batch..., M, N] with numpy's rules (1-D operands promoted and dropped again,
// batch dims broadcast), the last two dims of A and/or B swapped first: MatMul, and com.microsoft's
// FusedMatMul with transA/transB.
Expected<void> setMatMulOutput(ShapeContext& ctx, DataType elem, bool transA, bool transB);

}  // namespace onyx::math_shapes
