#pragma once
// The nn family's shape functions, split by theme across files and registered together.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx::nn_shapes {

// conv_shapes.cpp
Expected<void> inferConv(ShapeContext& ctx);
Expected<void> inferConvTranspose(ShapeContext& ctx);
Expected<void> inferPool(ShapeContext& ctx);
Expected<void> inferGlobalPool(ShapeContext& ctx);
Expected<void> inferMaxUnpool(ShapeContext& ctx);
Expected<void> inferCol2Im(ShapeContext& ctx);
Expected<void> inferCausalConvWithState(ShapeContext& ctx);
// Output spatial dims of a convolution-like window over `input` dims starting at `firstSpatial`, for Conv,
// QLinearConv and the pools; the window comes from the node's attributes.
Expected<Shape> windowOutput(ShapeContext& ctx, const Shape& input, const std::vector<Dim>& kernel, bool ceilMode);
// normalization_shapes.cpp
Expected<void> inferBatchNorm(ShapeContext& ctx);
Expected<void> inferLayerNorm(ShapeContext& ctx);
Expected<void> inferDropout(ShapeContext& ctx);
Expected<void> inferNllLoss(ShapeContext& ctx);
Expected<void> inferSoftmaxCrossEntropyLoss(ShapeContext& ctx);
// attention_shapes.cpp
Expected<void> inferAttention(ShapeContext& ctx);
Expected<void> inferLinearAttention(ShapeContext& ctx);
Expected<void> inferFlexAttention(ShapeContext& ctx);
// resampling_shapes.cpp
Expected<void> inferResize(ShapeContext& ctx);
Expected<void> inferSpaceToDepth(ShapeContext& ctx);
Expected<void> inferDepthToSpace(ShapeContext& ctx);
Expected<void> inferCenterCropPad(ShapeContext& ctx);
Expected<void> inferGridSample(ShapeContext& ctx);
Expected<void> inferAffineGrid(ShapeContext& ctx);

}  // namespace onyx::nn_shapes
