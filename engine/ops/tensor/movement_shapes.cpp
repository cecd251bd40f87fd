// Shape functions of data movement ops: Transpose, Tile, Pad, and the data-dependent Compress, NonZero and
// Unique, plus OneHot and BitCast.
#include "ops/tensor/tensor_shapes.h"

namespace onyx::tensor_shapes {

using namespace shapes;

Expected<void> inferTranspose(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  std::vector<int64_t> perm;
  if (auto given = ctx.attrInts("perm"); given && !given->empty()) {
    perm = *given;
  } else {
    for (size_t i = in.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  if (perm.size() != in.size()) {
    return ctx.error("Transpose perm has " + std::to_string(perm.size()) + " entries for " + ctx.describeInput(0) + " of rank " + std::to_string(in.size()));
  }
  auto axes = normalizeAxes(ctx, perm, in.size());
  if (!axes) return axes.error();
  Shape out;
  for (size_t axis : *axes) out.push_back(in[axis]);
  ctx.setOutputTensor(0, elem, out);
  auto inDims = staticDims(in);
  if (ctx.inputValue(0) && inDims) {
    auto outDims = *staticDims(out);
    auto moved = rearrangeValue(*ctx.inputValue(0), *inDims, outDims, [&](const std::vector<int64_t>& index) {
      std::vector<int64_t> from(index.size());
      for (size_t k = 0; k < index.size(); ++k) from[(*axes)[k]] = index[k];
      return from;
    });
    if (moved) ctx.setOutputValue(0, std::move(*moved));
  }
  return {};
}

Expected<void> inferTile(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  const auto& repeats = ctx.inputValue(1);
  if (!repeats) {
    ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size(), runtimeReason(ctx, 1, "the repeats")));
    return {};
  }
  if (repeats->size() != in.size()) {
    return ctx.error("Tile has " + std::to_string(repeats->size()) + " repeats for " + ctx.describeInput(0) + " of rank " + std::to_string(in.size()));
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) out.push_back(dimMul(in[i], (*repeats)[i]));
  ctx.setOutputTensor(0, elem, out);
  const auto& value = ctx.inputValue(0);
  auto times = ctx.inputInts(1);
  if (value && in.size() == 1 && times && trackableValueShape(out)) {
    std::vector<Dim> tiled;
    for (int64_t t = 0; t < (*times)[0]; ++t) tiled.insert(tiled.end(), value->begin(), value->end());
    ctx.setOutputValue(0, std::move(tiled));
  }
  return {};
}

Expected<void> inferPad(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  std::vector<Dim> pads;
  if (ctx.opset() < 11) {
    auto given = ctx.attrInts(ctx.opset() < 2 ? "paddings" : "pads");
    if (!given) given = ctx.attrInts("pads");
    if (!given) return ctx.error("Pad needs a 'pads' attribute");
    pads = dimsFromInts(*given);
  } else if (const auto& value = ctx.inputValue(1)) {
    pads = *value;
  } else {
    ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size(), runtimeReason(ctx, 1, "the pads")));
    return {};
  }
  std::vector<size_t> axes;
  if (ctx.opset() >= 18 && ctx.hasInput(3)) {
    auto given = ctx.inputInts(3);
    if (!given) {
      ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size(), runtimeReason(ctx, 3, "the padded axes")));
      return {};
    }
    auto normalized = normalizeAxes(ctx, *given, in.size());
    if (!normalized) return normalized.error();
    axes = *normalized;
  } else {
    for (size_t i = 0; i < in.size(); ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size()) {
    return ctx.error("Pad has " + std::to_string(pads.size()) + " pads for " + std::to_string(axes.size()) + " axes (needs twice as many)");
  }
  Shape out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    Dim padded = dimAdd(dimAdd(in[axes[i]], pads[i]), pads[i + axes.size()]);
    if (auto v = padded.value(); v && *v < 0) return ctx.error("Pad makes axis " + std::to_string(axes[i]) + " negative (" + std::to_string(*v) + ")");
    out[axes[i]] = padded;
  }
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferCompress(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  Dim count = ctx.unknownDim("Compress: output count depends on the condition values");
  if (auto condition = ctx.inputInts(1)) {
    int64_t kept = 0;
    for (int64_t v : *condition) kept += v != 0;
    count = Dim(kept);
  }
  if (!ctx.hasAttr("axis")) {
    ctx.setOutputTensor(0, elem, {count});
    return {};
  }
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), in.size());
  if (!axis) return axis.error();
  Shape out = in;
  out[*axis] = count;
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferNonZero(ShapeContext& ctx) {
  const auto& in = ctx.inputShape(0);
  Dim rank = in ? Dim(static_cast<int64_t>(in->size())) : Dim::unknown(ctx.rankOriginOf(0));
  Dim count = ctx.unknownDim("NonZero: output count depends on the data");
  if (auto values = ctx.inputInts(0)) {
    int64_t nonZero = 0;
    for (int64_t v : *values) nonZero += v != 0;
    count = Dim(nonZero);
  }
  ctx.setOutputTensor(0, DataType::Int64, {rank, count});
  return {};
}

Expected<void> inferUnique(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  Dim unique = ctx.unknownDim("Unique: number of distinct values depends on the data");
  const auto& in = ctx.inputShape(0);
  if (!in) {
    ctx.setOutputUnknownRank(0, elem, ctx.rankOriginOf(0));
    for (size_t i = 1; i < 4; ++i) ctx.setOutputTensor(i, DataType::Int64, {i == 2 ? Dim::unknown(ctx.rankOriginOf(0)) : unique});
    return {};
  }
  if (!ctx.hasAttr("axis")) {
    ctx.setOutputTensor(0, elem, {unique});
    ctx.setOutputTensor(2, DataType::Int64, {dimProduct(*in)});
  } else {
    auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), in->size());
    if (!axis) return axis.error();
    Shape out = *in;
    out[*axis] = unique;
    ctx.setOutputTensor(0, elem, std::move(out));
    ctx.setOutputTensor(2, DataType::Int64, {(*in)[*axis]});
  }
  ctx.setOutputTensor(1, DataType::Int64, {unique});
  ctx.setOutputTensor(3, DataType::Int64, {unique});
  return {};
}

Expected<void> inferOneHot(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(2);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& indices = *ctx.inputShape(0);
  const auto& depthValue = ctx.inputValue(1);
  Dim depth = depthValue && depthValue->size() == 1 ? (*depthValue)[0] : ctx.unknownDim(runtimeReason(ctx, 1, "the depth"));
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), indices.size() + 1);
  if (!axis) return axis.error();
  Shape out = indices;
  out.insert(out.begin() + *axis, depth);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferBitCast(ShapeContext& ctx) {
  DataType to = static_cast<DataType>(ctx.attrInt("to", 0));
  if (forwardUnknownRank(ctx, 0, 0, to)) return {};
  if (dataTypeBits(to) != dataTypeBits(ctx.inputElemType(0)) && ctx.inputElemType(0) != DataType::Undefined) {
    return ctx.error("BitCast from " + std::string(dataTypeName(ctx.inputElemType(0))) + " to " + std::string(dataTypeName(to)) + " changes the element width");
  }
  ctx.setOutputTensor(0, to, *ctx.inputShape(0));
  return {};
}

}  // namespace onyx::tensor_shapes
