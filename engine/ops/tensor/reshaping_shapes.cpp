// Shape functions of ops that change a tensor's shape but not its elements: Shape, Size, Reshape, Flatten,
// Squeeze, Unsqueeze, Expand, Identity. Shape and Size produce values that later shape arithmetic reads.
#include <algorithm>

#include "ops/tensor/tensor_shapes.h"
#include "shapes/shape_limits.h"
#include "util/limits.h"

namespace onyx::tensor_shapes {

using namespace shapes;

Expected<void> inferShape(ShapeContext& ctx) {
  const auto& in = ctx.inputShape(0);
  if (!in) {
    ctx.setOutputTensor(0, DataType::Int64, {ctx.unknownDim("Shape: rank of the input is unknown")});
    return {};
  }
  int64_t rank = static_cast<int64_t>(in->size());
  int64_t start = ctx.opset() >= 15 ? ctx.attrInt("start", 0) : 0;
  int64_t end = ctx.opset() >= 15 ? ctx.attrInt("end", rank) : rank;
  auto clampAxis = [&](int64_t axis) { return std::clamp(axis < 0 ? axis + rank : axis, int64_t{0}, rank); };
  start = clampAxis(start);
  end = clampAxis(end);
  std::vector<Dim> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back((*in)[i]);
  ctx.setOutputTensor(0, DataType::Int64, {Dim(static_cast<int64_t>(dims.size()))});
  ctx.setOutputValue(0, std::move(dims));
  return {};
}

Expected<void> inferSize(ShapeContext& ctx) {
  ctx.setOutputTensor(0, DataType::Int64, {});
  const auto& in = ctx.inputShape(0);
  ctx.setOutputValue(0, {in ? dimProduct(*in) : Dim::unknown(ctx.rankOriginOf(0))});
  return {};
}

namespace {

// Divides the product of `total` by the product of `known`, cancelling equal factors first so that
// [N, S, 768] reshaped to [N*S, -1] gives 768 rather than a quotient the algebra must simplify.
Dim quotientOfProducts(std::vector<Dim> total, std::vector<Dim> known) {
  for (auto it = known.begin(); it != known.end();) {
    if (it->isUnknown()) { ++it; continue; }
    auto match = std::find_if(total.begin(), total.end(), [&](const Dim& d) {
      return !d.isUnknown() && d.expr() == it->expr();
    });
    if (match != total.end()) {
      total.erase(match);
      it = known.erase(it);
    } else {
      ++it;
    }
  }
  Dim numerator = dimProduct(total);
  if (known.empty()) return numerator;
  return dimFloorDiv(numerator, dimProduct(known));
}

}  // namespace

Expected<void> inferReshape(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  std::vector<Dim> target;
  if (ctx.opset() < 5) {
    auto ints = ctx.attrInts("shape");
    if (!ints) return ctx.error("Reshape-1 needs a 'shape' attribute");
    target = dimsFromInts(*ints);
  } else if (const auto& value = ctx.inputValue(1)) {
    target = *value;
  } else {
    auto rank = declaredShapeLength(ctx, 1);
    if (!rank) return rank.error();
    std::string reason = runtimeReason(ctx, 1, "the target shape");
    if (*rank) ctx.setOutputTensor(0, elem, ctx.unknownDims(**rank, reason));
    else ctx.setOutputUnknownRank(0, elem, ctx.origin(reason));
    return {};
  }
  bool allowZero = ctx.opset() >= 14 && ctx.attrInt("allowzero", 0) != 0;
  const auto& in = ctx.inputShape(0);
  Shape out(target.size());
  std::optional<size_t> inferred;
  for (size_t i = 0; i < target.size(); ++i) {
    auto v = target[i].value();
    if (v == -1) {
      if (inferred) return ctx.error("Reshape target " + shapeToString(target) + " has more than one -1");
      inferred = i;
    } else if (v == 0 && !allowZero) {
      if (!in) out[i] = Dim::unknown(ctx.rankOriginOf(0));
      else if (i >= in->size()) return ctx.error("Reshape target copies dim " + std::to_string(i) + " (0) of " + ctx.describeInput(0) + ", which has rank " + std::to_string(in->size()));
      else out[i] = (*in)[i];
    } else if (v && *v < -1) {
      return ctx.error("Reshape target " + shapeToString(target) + " has the negative dim " + std::to_string(*v));
    } else if (target[i].isUnknown()) {
      out[i] = target[i];
    } else {
      out[i] = target[i];
    }
  }
  if (in) {
    auto inCount = staticElementCount(*in);
    if (inferred) {
      std::vector<Dim> known;
      for (size_t i = 0; i < out.size(); ++i) {
        if (i != *inferred) known.push_back(out[i]);
      }
      auto knownCount = staticElementCount(known);
      if (inCount && knownCount) {
        if (*knownCount == 0 || *inCount % *knownCount != 0) {
          return ctx.error("cannot reshape " + std::to_string(*inCount) + " elements of " + ctx.describeInput(0) + " " +
                           shapeToString(*in) + " into " + shapeToString(target));
        }
        out[*inferred] = Dim(*inCount / *knownCount);
      } else {
        out[*inferred] = quotientOfProducts(*in, known);
      }
    } else {
      auto outCount = staticElementCount(out);
      if (inCount && outCount && *inCount != *outCount) {
        return ctx.error("cannot reshape " + std::to_string(*inCount) + " elements of " + ctx.describeInput(0) + " " +
                         shapeToString(*in) + " into " + shapeToString(target) + " (" + std::to_string(*outCount) +
                         " elements)");
      }
    }
  } else if (inferred) {
    out[*inferred] = Dim::unknown(ctx.rankOriginOf(0));
  }
  ctx.setOutputTensor(0, elem, out);
  if (ctx.inputValue(0) && trackableValueShape(out)) ctx.setOutputValue(0, *ctx.inputValue(0));
  return {};
}

Expected<void> inferFlatten(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  int64_t axis = ctx.attrInt("axis", 1);
  int64_t rank = static_cast<int64_t>(in.size());
  if (axis < -rank || axis > rank) return ctx.error("Flatten axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  std::span<const Dim> dims(in);
  ctx.setOutputTensor(0, elem, {dimProduct(dims.subspan(0, axis)), dimProduct(dims.subspan(axis))});
  return {};
}

Expected<void> inferSqueeze(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  auto axes = intsArgument(ctx, "axes", 1, 13);
  std::vector<bool> removed(in.size(), false);
  if (axes.state == IntsArgument::State::Runtime) {
    ctx.setOutputUnknownRank(0, elem, ctx.origin(runtimeReason(ctx, 1, "the squeezed axes")));
    return {};
  }
  if (!axes.present()) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i].value() == 1) removed[i] = true;
      else if (!in[i].isStatic()) {
        ctx.setOutputUnknownRank(0, elem, ctx.origin("Squeeze without axes: whether dim " + std::to_string(i) + " (" + in[i].toString() + ") is 1 is not known"));
        return {};
      }
    }
  } else {
    auto normalized = normalizeAxes(ctx, axes.values, in.size());
    if (!normalized) return normalized.error();
    for (size_t axis : *normalized) {
      if (auto v = in[axis].value(); v && *v != 1) {
        return ctx.error("Squeeze axis " + std::to_string(axis) + " has size " + std::to_string(*v) + ", not 1, in " + ctx.describeInput(0));
      }
      removed[axis] = true;
    }
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!removed[i]) out.push_back(in[i]);
  }
  ctx.setOutputTensor(0, elem, out);
  if (ctx.inputValue(0) && trackableValueShape(out)) ctx.setOutputValue(0, *ctx.inputValue(0));
  return {};
}

Expected<void> inferUnsqueeze(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  auto axes = intsArgument(ctx, "axes", 1, 13);
  if (axes.state != IntsArgument::State::Known) {
    const auto& axesShape = ctx.inputShape(1);
    int64_t count = -1;
    if (axesShape && axesShape->empty()) count = 1;
    else if (axesShape && axesShape->size() == 1) count = (*axesShape)[0].value().value_or(-1);
    std::string reason = axes.present() ? runtimeReason(ctx, 1, "the unsqueezed axes") : "Unsqueeze has no axes";
    if (count >= 0) {
      if (auto checked = checkShapeLength(count, "Unsqueeze axes input " + ctx.describeInput(1), ""); !checked)
        return ctx.error(checked.error().message);
      ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size() + static_cast<size_t>(count), reason));
    }
    else ctx.setOutputUnknownRank(0, elem, ctx.origin(reason));
    return {};
  }
  size_t rank = in.size() + axes.values.size();
  auto normalized = normalizeAxes(ctx, axes.values, rank);
  if (!normalized) return normalized.error();
  std::vector<bool> inserted(rank, false);
  for (size_t axis : *normalized) inserted[axis] = true;
  Shape out;
  size_t next = 0;
  for (size_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? Dim(1) : in[next++]);
  ctx.setOutputTensor(0, elem, out);
  if (ctx.inputValue(0) && trackableValueShape(out)) ctx.setOutputValue(0, *ctx.inputValue(0));
  return {};
}

Expected<void> inferExpand(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  const auto& target = ctx.inputValue(1);
  if (!target) {
    auto rank = declaredShapeLength(ctx, 1);
    if (!rank) return rank.error();
    std::string reason = runtimeReason(ctx, 1, "the target shape");
    if (*rank) ctx.setOutputTensor(0, elem, ctx.unknownDims(std::max<size_t>(in.size(), **rank), reason));
    else ctx.setOutputUnknownRank(0, elem, ctx.origin(reason));
    return {};
  }
  for (const Dim& dim : *target) {
    if (auto v = dim.value(); v && *v < 0) return ctx.error("Expand: negative dim " + std::to_string(*v) + " in the target shape from " + ctx.describeInput(1));
  }
  auto shape = ctx.broadcastShapes(in, 0, *target, 1);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, *shape);
  const auto& value = ctx.inputValue(0);
  if (value && trackableValueShape(*shape) && value->size() == 1) {
    if (auto n = staticElementCount(*shape)) ctx.setOutputValue(0, std::vector<Dim>(*n, (*value)[0]));
  } else if (value && trackableValueShape(*shape) && shape->size() == 1 && (*shape)[0].value() == static_cast<int64_t>(value->size())) {
    ctx.setOutputValue(0, *value);
  }
  return {};
}

Expected<void> inferIdentity(ShapeContext& ctx) {
  InferredValue out = ctx.input(0);
  if (out.type.isNone() || (out.type.isTensor() && !out.type.shape())) out.rankOrigin = ctx.rankOriginOf(0);
  ctx.setOutput(0, std::move(out));
  return {};
}

}  // namespace onyx::tensor_shapes
