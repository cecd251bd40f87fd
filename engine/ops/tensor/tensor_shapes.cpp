// Registration of the tensor family: creation, reshaping, slicing and data movement.
#include "ops/tensor/tensor_shapes.h"

namespace onyx {

using namespace tensor_shapes;
using shapes::inferSameAsInput0;

void registerTensorSchemas(OpRegistry& registry) {
  registry.add({"", "Constant", OpCategory::Creation, {1, 9, 11, 12, 13, 19, 21, 23, 24, 25}, 0, 0, 1, 1, false, inferConstant});
  registry.add({"", "ConstantOfShape", OpCategory::Creation, {9, 20, 21, 23, 24, 25}, 1, 1, 1, 1, false, inferConstantOfShape});
  registry.add({"", "Range", OpCategory::Creation, {11, 27}, 3, 3, 1, 1, false, inferRange});
  registry.add({"", "EyeLike", OpCategory::Creation, {9, 22}, 1, 1, 1, 1, false, inferEyeLike});
  registry.add({"", "Shape", OpCategory::Shape, {1, 13, 15, 19, 21, 23, 24, 25}, 1, 1, 1, 1, false, inferShape});
  registry.add({"", "Size", OpCategory::Shape, {1, 13, 19, 21, 23, 24, 25}, 1, 1, 1, 1, false, inferSize});
  registry.add({"", "Reshape", OpCategory::Shape, {1, 5, 13, 14, 19, 21, 23, 24, 25}, 1, 2, 1, 1, false, inferReshape});
  registry.add({"", "Flatten", OpCategory::Shape, {1, 9, 11, 13, 21, 23, 24, 25}, 1, 1, 1, 1, false, inferFlatten});
  registry.add({"", "Squeeze", OpCategory::Shape, {1, 11, 13, 21, 23, 24, 25}, 1, 2, 1, 1, false, inferSqueeze});
  registry.add({"", "Unsqueeze", OpCategory::Shape, {1, 11, 13, 21, 23, 24, 25}, 1, 2, 1, 1, false, inferUnsqueeze});
  registry.add({"", "Expand", OpCategory::Shape, {8, 13}, 2, 2, 1, 1, false, inferExpand});
  registry.add({"", "Identity", OpCategory::DataMovement, {1, 13, 14, 16, 19, 21, 23, 24, 25}, 1, 1, 1, 1, false, inferIdentity});
  registry.add({"", "Concat", OpCategory::DataMovement, {1, 4, 11, 13}, 1, OpSchema::kVariadic, 1, 1, false, inferConcat});
  registry.add({"", "Split", OpCategory::DataMovement, {1, 2, 11, 13, 18}, 1, 2, 1, OpSchema::kVariadic, false, inferSplit});
  registry.add({"", "Slice", OpCategory::DataMovement, {1, 10, 11, 13}, 1, 5, 1, 1, false, inferSlice});
  registry.add({"", "Gather", OpCategory::DataMovement, {1, 11, 13}, 2, 2, 1, 1, false, inferGather});
  registry.add({"", "GatherND", OpCategory::DataMovement, {11, 12, 13}, 2, 2, 1, 1, false, inferGatherND});
  registry.add({"", "GatherElements", OpCategory::DataMovement, {11, 13}, 2, 2, 1, 1, false, inferGatherElements});
  registry.add({"", "Transpose", OpCategory::DataMovement, {1, 13, 21, 23, 24, 25}, 1, 1, 1, 1, false, inferTranspose});
  registry.add({"", "Tile", OpCategory::DataMovement, {1, 6, 13}, 2, 3, 1, 1, false, inferTile});
  registry.add({"", "Pad", OpCategory::DataMovement, {1, 2, 11, 13, 18, 19, 21, 23, 24, 25}, 1, 4, 1, 1, false, inferPad});
  registry.add({"", "ScatterND", OpCategory::DataMovement, {11, 13, 16, 18}, 3, 3, 1, 1, false, inferSameAsInput0});
  registry.add({"", "ScatterElements", OpCategory::DataMovement, {11, 13, 16, 18}, 3, 3, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Scatter", OpCategory::DataMovement, {9, 11}, 3, 3, 1, 1, false, inferSameAsInput0});
  registry.add({"", "TensorScatter", OpCategory::DataMovement, {24}, 2, 3, 1, 1, false, inferSameAsInput0});
  registry.add({"", "ReverseSequence", OpCategory::DataMovement, {10}, 2, 2, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Trilu", OpCategory::DataMovement, {14}, 1, 2, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Compress", OpCategory::DataMovement, {9, 11}, 2, 2, 1, 1, false, inferCompress});
  registry.add({"", "NonZero", OpCategory::DataMovement, {9, 13}, 1, 1, 1, 1, false, inferNonZero});
  registry.add({"", "Unique", OpCategory::DataMovement, {11}, 1, 1, 1, 4, false, inferUnique});
  registry.add({"", "OneHot", OpCategory::DataMovement, {9, 11}, 3, 3, 1, 1, false, inferOneHot});
  registry.add({"", "Cast", OpCategory::Elementwise, {1, 6, 9, 13, 19, 21, 23, 24, 25}, 1, 1, 1, 1, true, inferCast});
  registry.add({"", "CastLike", OpCategory::Elementwise, {15, 19, 21, 23, 24, 25}, 2, 2, 1, 1, true, inferCastLike});
  registry.add({"", "BitCast", OpCategory::DataMovement, {26}, 1, 1, 1, 1, false, inferBitCast});
}

}  // namespace onyx
