// Registration of the nn family: convolutions, pools, normalizations, attention, resampling and losses.
#include "ops/nn/nn_shapes.h"

namespace onyx {

using namespace nn_shapes;
using shapes::inferSameAsInput0;

void registerNnSchemas(OpRegistry& registry) {
  registry.add({"", "Conv", OpCategory::Layer, {1, 11, 22}, 2, 3, 1, 1, false, inferConv});
  registry.add({"", "DeformConv", OpCategory::Layer, {19, 22}, 3, 5, 1, 1, false, inferConv});
  registry.add({"", "ConvTranspose", OpCategory::Layer, {1, 11, 22}, 2, 3, 1, 1, false, inferConvTranspose});
  registry.add({"", "MaxPool", OpCategory::Pool, {1, 8, 10, 11, 12, 22}, 1, 1, 1, 2, false, inferPool});
  registry.add({"", "AveragePool", OpCategory::Pool, {1, 7, 10, 11, 19, 22}, 1, 1, 1, 1, false, inferPool});
  registry.add({"", "LpPool", OpCategory::Pool, {1, 2, 11, 18, 22}, 1, 1, 1, 1, false, inferPool});
  registry.add({"", "GlobalAveragePool", OpCategory::Pool, {1, 22}, 1, 1, 1, 1, false, inferGlobalPool});
  registry.add({"", "GlobalMaxPool", OpCategory::Pool, {1, 22}, 1, 1, 1, 1, false, inferGlobalPool});
  registry.add({"", "MaxUnpool", OpCategory::Pool, {9, 11, 22}, 2, 3, 1, 1, false, inferMaxUnpool});
  registry.add({"", "BatchNormalization", OpCategory::Normalization, {1, 6, 7, 9, 14, 15}, 5, 5, 1, 5, false, inferBatchNorm});
  registry.add({"", "InstanceNormalization", OpCategory::Normalization, {1, 6, 22}, 3, 3, 1, 1, false, inferSameAsInput0});
  registry.add({"", "GroupNormalization", OpCategory::Normalization, {18, 21}, 3, 3, 1, 1, false, inferSameAsInput0});
  registry.add({"", "LpNormalization", OpCategory::Normalization, {1, 22}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "MeanVarianceNormalization", OpCategory::Normalization, {9, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "LRN", OpCategory::Normalization, {1, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "LayerNormalization", OpCategory::Normalization, {17}, 2, 3, 1, 3, false, inferLayerNorm});
  registry.add({"", "RMSNormalization", OpCategory::Normalization, {23}, 2, 2, 1, 1, false, inferLayerNorm});
  registry.add({"", "Softmax", OpCategory::Activation, {1, 11, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "LogSoftmax", OpCategory::Activation, {1, 11, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Hardmax", OpCategory::Activation, {1, 11, 13}, 1, 1, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Dropout", OpCategory::Other, {1, 6, 7, 10, 12, 13, 22}, 1, 3, 1, 2, false, inferDropout});
  registry.add({"", "Col2Im", OpCategory::Layer, {18}, 3, 3, 1, 1, false, inferCol2Im});
  registry.add({"", "GridSample", OpCategory::DataMovement, {16, 20, 22}, 2, 2, 1, 1, false, inferGridSample});
  registry.add({"", "AffineGrid", OpCategory::Creation, {20}, 2, 2, 1, 1, false, inferAffineGrid});
  registry.add({"", "Attention", OpCategory::Attention, {23, 24, 25}, 3, 7, 1, 4, false, inferAttention});
  registry.add({"", "LinearAttention", OpCategory::Attention, {27}, 3, 6, 2, 2, false, inferLinearAttention});
  registry.add({"", "RotaryEmbedding", OpCategory::Attention, {23}, 3, 4, 1, 1, false, inferSameAsInput0});
  registry.add({"ai.onnx.preview", "FlexAttention", OpCategory::Attention, {1}, 3, 5, 1, 1, false, inferFlexAttention});
  registry.add({"", "CausalConvWithState", OpCategory::Layer, {27}, 2, 4, 2, 2, false, inferCausalConvWithState});
  registry.add({"", "NegativeLogLikelihoodLoss", OpCategory::Other, {12, 13, 22}, 2, 3, 1, 1, false, inferNllLoss});
  registry.add({"", "SoftmaxCrossEntropyLoss", OpCategory::Other, {12, 13}, 2, 3, 1, 2, false, inferSoftmaxCrossEntropyLoss});
  registry.add({"", "Resize", OpCategory::DataMovement, {10, 11, 13, 18, 19}, 1, 4, 1, 1, false, inferResize});
  registry.add({"", "Upsample", OpCategory::DataMovement, {7, 9, 10}, 1, 2, 1, 1, false, inferResize});
  registry.add({"", "SpaceToDepth", OpCategory::DataMovement, {1, 13}, 1, 1, 1, 1, false, inferSpaceToDepth});
  registry.add({"", "DepthToSpace", OpCategory::DataMovement, {1, 11, 13}, 1, 1, 1, 1, false, inferDepthToSpace});
  registry.add({"", "CenterCropPad", OpCategory::DataMovement, {18}, 2, 2, 1, 1, false, inferCenterCropPad});
}

}  // namespace onyx
