// Shape functions of detection ops. NonMaxSuppression's output count depends on the scores.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

Expected<void> inferNonMaxSuppression(ShapeContext& ctx) {
  ctx.setOutputTensor(0, DataType::Int64,
                      {ctx.unknownDim("NonMaxSuppression: number of selected boxes depends on the scores"), Dim(3)});
  return {};
}

Expected<void> inferRoiAlign(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& x = ctx.inputShape(0);
  const auto& rois = ctx.inputShape(1);
  Dim count = rois && !rois->empty() ? (*rois)[0] : Dim::unknown(ctx.rankOriginOf(1));
  Dim channels = x && x->size() == 4 ? (*x)[1] : Dim::unknown(ctx.rankOriginOf(0));
  ctx.setOutputTensor(0, elem, {count, channels, Dim(ctx.attrInt("output_height", 1)), Dim(ctx.attrInt("output_width", 1))});
  return {};
}

}  // namespace

void registerDetectionSchemas(OpRegistry& registry) {
  registry.add({"", "NonMaxSuppression", OpCategory::Detection, {10, 11}, 2, 5, 1, 1, false, inferNonMaxSuppression});
  registry.add({"", "RoiAlign", OpCategory::Detection, {10, 16, 22}, 3, 3, 1, 1, false, inferRoiAlign});
}

}  // namespace onyx
