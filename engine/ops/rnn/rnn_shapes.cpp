// Shape functions of the recurrent layers LSTM, GRU and RNN.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

Expected<void> inferRecurrent(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (!ctx.inputShape(0)) {
    for (size_t i = 0; i < ctx.outputCount(); ++i) ctx.setOutputUnknownRank(i, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& x = *ctx.inputShape(0);
  if (x.size() != 3) return ctx.error(ctx.node().opType() + " input X must have rank 3, not " + std::to_string(x.size()));
  bool batchFirst = ctx.opset() >= 14 && ctx.attrInt("layout", 0) != 0;
  Dim sequence = batchFirst ? x[1] : x[0];
  Dim batch = batchFirst ? x[0] : x[1];
  Dim directions(ctx.attrString("direction", "forward") == "bidirectional" ? 2 : 1);
  Dim hidden;
  if (ctx.hasAttr("hidden_size")) {
    hidden = Dim(ctx.attrInt("hidden_size", 0));
  } else if (const auto& r = ctx.inputShape(2); r && r->size() == 3) {
    hidden = r->back();  // R is [directions, gates*hidden, hidden]
  } else {
    hidden = ctx.unknownDim(ctx.node().opType() + ": no hidden_size and the shape of R is unknown");
  }
  if (batchFirst) {
    ctx.setOutputTensor(0, elem, {batch, sequence, directions, hidden});
    for (size_t i = 1; i < ctx.outputCount(); ++i) ctx.setOutputTensor(i, elem, {batch, directions, hidden});
  } else {
    ctx.setOutputTensor(0, elem, {sequence, directions, batch, hidden});
    for (size_t i = 1; i < ctx.outputCount(); ++i) ctx.setOutputTensor(i, elem, {directions, batch, hidden});
  }
  return {};
}

}  // namespace

void registerRnnSchemas(OpRegistry& registry) {
  registry.add({"", "LSTM", OpCategory::Recurrent, {1, 7, 14, 22}, 3, 8, 0, 3, false, inferRecurrent});
  registry.add({"", "GRU", OpCategory::Recurrent, {1, 3, 7, 14, 22}, 3, 6, 0, 2, false, inferRecurrent});
  registry.add({"", "RNN", OpCategory::Recurrent, {1, 7, 14, 22}, 3, 6, 0, 2, false, inferRecurrent});
}

}  // namespace onyx
