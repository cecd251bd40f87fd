#pragma once
// The tensor family's shape functions, split by theme across files and registered together.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx::tensor_shapes {

// cast_shapes.cpp
Expected<void> inferCast(ShapeContext& ctx);
Expected<void> inferCastLike(ShapeContext& ctx);
// creation_shapes.cpp
Expected<void> inferConstant(ShapeContext& ctx);
Expected<void> inferConstantOfShape(ShapeContext& ctx);
Expected<void> inferRange(ShapeContext& ctx);
Expected<void> inferEyeLike(ShapeContext& ctx);
// reshaping_shapes.cpp
Expected<void> inferShape(ShapeContext& ctx);
Expected<void> inferSize(ShapeContext& ctx);
Expected<void> inferReshape(ShapeContext& ctx);
Expected<void> inferFlatten(ShapeContext& ctx);
Expected<void> inferSqueeze(ShapeContext& ctx);
Expected<void> inferUnsqueeze(ShapeContext& ctx);
Expected<void> inferExpand(ShapeContext& ctx);
Expected<void> inferIdentity(ShapeContext& ctx);
// slicing_shapes.cpp
Expected<void> inferConcat(ShapeContext& ctx);
Expected<void> inferSplit(ShapeContext& ctx);
Expected<void> inferSlice(ShapeContext& ctx);
Expected<void> inferGather(ShapeContext& ctx);
Expected<void> inferGatherND(ShapeContext& ctx);
Expected<void> inferGatherElements(ShapeContext& ctx);
// movement_shapes.cpp
Expected<void> inferTranspose(ShapeContext& ctx);
Expected<void> inferTile(ShapeContext& ctx);
Expected<void> inferPad(ShapeContext& ctx);
Expected<void> inferCompress(ShapeContext& ctx);
Expected<void> inferNonZero(ShapeContext& ctx);
Expected<void> inferUnique(ShapeContext& ctx);
Expected<void> inferOneHot(ShapeContext& ctx);
Expected<void> inferBitCast(ShapeContext& ctx);

}  // namespace onyx::tensor_shapes
