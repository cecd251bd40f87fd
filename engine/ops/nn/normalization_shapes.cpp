// Shape functions of normalizations, Dropout and the losses.
#include "ops/nn/nn_shapes.h"

namespace onyx::nn_shapes {

using namespace shapes;

Expected<void> inferBatchNorm(ShapeContext& ctx) {
  auto done = inferSameAsInput0(ctx);
  // Training outputs (running or saved mean and variance) have the per-channel shape of the scale.
  DataType statsType = ctx.hasInput(3) ? ctx.inputElemType(3) : ctx.inputElemType(0);
  for (size_t i = 1; i < ctx.outputCount(); ++i) {
    if (!ctx.hasOutput(i)) continue;
    if (const auto& scale = ctx.inputShape(1)) ctx.setOutputTensor(i, statsType, *scale);
    else ctx.setOutputUnknownRank(i, statsType, ctx.rankOriginOf(1));
  }
  return done;
}

Expected<void> inferLayerNorm(ShapeContext& ctx) {
  auto done = inferSameAsInput0(ctx);
  if (ctx.outputCount() < 2) return done;
  DataType stash = static_cast<DataType>(ctx.attrInt("stash_type", static_cast<int64_t>(DataType::Float)));
  if (!ctx.inputShape(0)) {
    for (size_t i = 1; i < ctx.outputCount(); ++i) ctx.setOutputUnknownRank(i, stash, ctx.rankOriginOf(0));
    return done;
  }
  const Shape& x = *ctx.inputShape(0);
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), x.size());
  if (!axis) return axis.error();
  Shape stats(x.begin(), x.begin() + *axis);
  stats.resize(x.size(), Dim(1));
  for (size_t i = 1; i < ctx.outputCount(); ++i) ctx.setOutputTensor(i, stash, stats);
  return done;
}

Expected<void> inferDropout(ShapeContext& ctx) {
  auto done = inferSameAsInput0(ctx);
  if (ctx.outputCount() < 2 || !ctx.hasOutput(1)) return done;
  DataType maskType = ctx.opset() >= 10 ? DataType::Bool : ctx.inputElemType(0);
  if (const auto& x = ctx.inputShape(0)) ctx.setOutputTensor(1, maskType, *x);
  else ctx.setOutputUnknownRank(1, maskType, ctx.rankOriginOf(0));
  return done;
}

namespace {

// A loss over (N, C, d1...) scores and (N, d1...) targets: a scalar, or the target's shape for "none".
void setLoss(ShapeContext& ctx, size_t targetInput) {
  DataType elem = ctx.inputElemType(0);
  if (ctx.attrString("reduction", "mean") != "none") {
    ctx.setOutputTensor(0, elem, {});
  } else if (const auto& target = ctx.inputShape(targetInput)) {
    ctx.setOutputTensor(0, elem, *target);
  } else {
    ctx.setOutputUnknownRank(0, elem, ctx.rankOriginOf(targetInput));
  }
}

}  // namespace

Expected<void> inferNllLoss(ShapeContext& ctx) {
  setLoss(ctx, 1);
  return {};
}

Expected<void> inferSoftmaxCrossEntropyLoss(ShapeContext& ctx) {
  setLoss(ctx, 1);
  if (ctx.outputCount() > 1 && ctx.hasOutput(1)) {
    if (const auto& scores = ctx.inputShape(0)) ctx.setOutputTensor(1, ctx.inputElemType(0), *scores);
    else ctx.setOutputUnknownRank(1, ctx.inputElemType(0), ctx.rankOriginOf(0));
  }
  return {};
}

}  // namespace onyx::nn_shapes
