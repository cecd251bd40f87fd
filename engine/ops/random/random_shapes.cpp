// Shape functions of random ops that take their shape from an input.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

Expected<void> likeInput(ShapeContext& ctx, DataType elem) {
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  ctx.setOutputTensor(0, elem, *ctx.inputShape(0));
  return {};
}

Expected<void> inferRandomLike(ShapeContext& ctx) {
  return likeInput(ctx, static_cast<DataType>(ctx.attrInt("dtype", static_cast<int64_t>(ctx.inputElemType(0)))));
}

Expected<void> inferBernoulli(ShapeContext& ctx) {
  return likeInput(ctx, static_cast<DataType>(ctx.attrInt("dtype", static_cast<int64_t>(ctx.inputElemType(0)))));
}

}  // namespace

void registerRandomSchemas(OpRegistry& registry) {
  registry.add({"", "RandomUniformLike", OpCategory::Random, {1, 22}, 1, 1, 1, 1, false, inferRandomLike});
  registry.add({"", "Bernoulli", OpCategory::Random, {15, 22}, 1, 1, 1, 1, false, inferBernoulli});
}

}  // namespace onyx
