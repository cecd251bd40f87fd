// Shape functions of resampling and spatial rearrangement: Resize, Upsample, SpaceToDepth, DepthToSpace,
// CenterCropPad, GridSample, AffineGrid.
#include <cmath>

#include "ops/nn/nn_shapes.h"
#include "shapes/value_constants.h"

namespace onyx::nn_shapes {

using namespace shapes;

namespace {

// floor(in * scale), kept symbolic when the scale is a whole number or the reciprocal of one.
Dim scaledDim(ShapeContext& ctx, const Dim& in, double scale) {
  if (auto v = in.value()) return Dim(static_cast<int64_t>(std::floor(static_cast<double>(*v) * scale + 1e-9)));
  if (in.isUnknown()) return in;
  if (scale >= 1 && scale == std::floor(scale)) return dimMul(in, Dim(static_cast<int64_t>(scale)));
  double inverse = 1.0 / scale;
  if (scale > 0 && std::fabs(inverse - std::round(inverse)) < 1e-9) return dimFloorDiv(in, Dim(static_cast<int64_t>(std::round(inverse))));
  return ctx.unknownDim(ctx.node().opType() + ": scale " + std::to_string(scale) + " of symbolic dim " + in.toString() +
                        " does not give a whole expression");
}

// Scales as doubles from a constant input, an integral small value or scales computed in floating point
// (interpolate's scale_factor from the input dims); nullopt when runtime.
std::optional<std::vector<double>> scalesOf(const ShapeContext& ctx, size_t input) {
  if (const Tensor* constant = ctx.inputConstant(input)) return tensorAsDoubles(*constant);
  if (auto ints = ctx.inputInts(input)) return std::vector<double>(ints->begin(), ints->end());
  if (const auto& real = ctx.input(input).real) {
    std::vector<double> numbers;
    for (const RealElement& element : *real) {
      if (element.kind != RealElement::Kind::Number) return std::nullopt;
      numbers.push_back(element.number);
    }
    return numbers;
  }
  return std::nullopt;
}

// floor(in * scale) for scales that are fractions of the dims (unbound symbols): a dim expression, or
// unknown where a scale is not known.
std::optional<Shape> symbolicScaledDims(const ShapeContext& ctx, Shape out, const std::vector<size_t>& axes, size_t input) {
  const auto& real = ctx.input(input).real;
  if (!real || real->size() != axes.size()) return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i) {
    RealElement product = realMul(RealElement::fromDim(out[axes[i]]), (*real)[i], DataType::Double);
    auto whole = realUnary("Floor", product, DataType::Double).wholeDim();
    out[axes[i]] = whole ? *whole : ctx.unknownDim(runtimeReason(ctx, input, "the scales"));
  }
  return out;
}

}  // namespace

Expected<void> inferResize(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  bool upsample = ctx.node().opType() == "Upsample";
  size_t scalesInput = upsample || ctx.opset() < 11 ? 1 : 2;
  std::vector<size_t> axes;
  if (auto given = ctx.opset() >= 18 ? ctx.attrInts("axes") : std::nullopt) {
    auto normalized = normalizeAxes(ctx, *given, in.size());
    if (!normalized) return normalized.error();
    axes = *normalized;
  } else {
    for (size_t i = 0; i < in.size(); ++i) axes.push_back(i);
  }
  Shape out = in;
  auto sizesShape = !upsample && ctx.opset() >= 11 && ctx.hasInput(3) ? ctx.inputShape(3) : std::nullopt;
  bool hasSizes = sizesShape && !(sizesShape->size() == 1 && (*sizesShape)[0].value() == 0);
  if (hasSizes) {
    const auto& sizes = ctx.inputValue(3);
    if (!sizes) {
      ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size(), runtimeReason(ctx, 3, "the output sizes")));
      return {};
    }
    if (sizes->size() != axes.size()) return ctx.error("Resize has " + std::to_string(sizes->size()) + " sizes for " + std::to_string(axes.size()) + " axes");
    std::string policy = ctx.attrString("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (size_t i = 0; i < axes.size(); ++i) out[axes[i]] = (*sizes)[i];
    } else {
      auto target = staticValues(*sizes);
      std::vector<int64_t> inDims;
      for (size_t axis : axes) {
        if (auto v = in[axis].value()) inDims.push_back(*v);
      }
      if (!target || inDims.size() != axes.size()) {
        for (size_t axis : axes) out[axis] = ctx.unknownDim("Resize: keep_aspect_ratio_policy needs static sizes");
      } else {
        double scale = policy == "not_larger" ? INFINITY : 0;
        for (size_t i = 0; i < axes.size(); ++i) {
          double s = static_cast<double>((*target)[i]) / static_cast<double>(inDims[i]);
          scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
        }
        for (size_t i = 0; i < axes.size(); ++i) out[axes[i]] = Dim(static_cast<int64_t>(std::round(scale * inDims[i])));
      }
    }
    ctx.setOutputTensor(0, elem, std::move(out));
    return {};
  }
  std::optional<std::vector<double>> scales;
  if (upsample && ctx.opset() < 9) {
    if (auto floats = ctx.attr("scales") ? ctx.attr("scales")->getFloats() : nullptr) scales = std::vector<double>(floats->begin(), floats->end());
  } else if (ctx.hasInput(scalesInput)) {
    scales = scalesOf(ctx, scalesInput);
    if (!scales) {
      if (auto scaled = symbolicScaledDims(ctx, out, axes, scalesInput)) {
        ctx.setOutputTensor(0, elem, std::move(*scaled));
        return {};
      }
      ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size(), runtimeReason(ctx, scalesInput, "the scales")));
      return {};
    }
  }
  if (!scales) return ctx.error(ctx.node().opType() + " needs scales or sizes");
  if (scales->size() != axes.size()) return ctx.error(ctx.node().opType() + " has " + std::to_string(scales->size()) + " scales for " + std::to_string(axes.size()) + " axes");
  for (size_t i = 0; i < axes.size(); ++i) out[axes[i]] = scaledDim(ctx, in[axes[i]], (*scales)[i]);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferSpaceToDepth(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  int64_t block = ctx.attrInt("blocksize", 0);
  if (x.size() != 4 || block <= 0) return ctx.error("SpaceToDepth needs a 4D input and a positive blocksize");
  ctx.setOutputTensor(0, elem, {x[0], dimMul(x[1], Dim(block * block)), dimFloorDiv(x[2], Dim(block)), dimFloorDiv(x[3], Dim(block))});
  return {};
}

Expected<void> inferDepthToSpace(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  int64_t block = ctx.attrInt("blocksize", 0);
  if (x.size() != 4 || block <= 0) return ctx.error("DepthToSpace needs a 4D input and a positive blocksize");
  if (auto c = x[1].value(); c && *c % (block * block) != 0) {
    return ctx.error("DepthToSpace: " + std::to_string(*c) + " channels are not divisible by blocksize^2 = " + std::to_string(block * block));
  }
  ctx.setOutputTensor(0, elem, {x[0], dimFloorDiv(x[1], Dim(block * block)), dimMul(x[2], Dim(block)), dimMul(x[3], Dim(block))});
  return {};
}

Expected<void> inferCenterCropPad(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  const auto& target = ctx.inputValue(1);
  std::vector<size_t> axes;
  if (auto given = ctx.attrInts("axes")) {
    auto normalized = normalizeAxes(ctx, *given, x.size());
    if (!normalized) return normalized.error();
    axes = *normalized;
  } else {
    for (size_t i = 0; i < x.size(); ++i) axes.push_back(i);
  }
  Shape out = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    out[axes[i]] = target && target->size() == axes.size() ? (*target)[i] : ctx.unknownDim(runtimeReason(ctx, 1, "the crop shape"));
  }
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferGridSample(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  const Shape& grid = *ctx.inputShape(1);
  if (x.size() < 3 || grid.size() != x.size()) return ctx.error("GridSample grid rank must equal the input rank (>= 3)");
  Shape out{x[0], x[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferAffineGrid(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& size = ctx.inputValue(1);
  if (!size) {
    ctx.setOutputUnknownRank(0, elem, ctx.origin(runtimeReason(ctx, 1, "the grid size")));
    return {};
  }
  if (size->size() != 4 && size->size() != 5) return ctx.error("AffineGrid size must have 4 or 5 entries (N, C, [D,] H, W)");
  Shape out{(*size)[0]};
  out.insert(out.end(), size->begin() + 2, size->end());
  out.push_back(Dim(static_cast<int64_t>(size->size() - 2)));
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

}  // namespace onyx::nn_shapes
