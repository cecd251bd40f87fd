#include "shapes/shape_helpers.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "shapes/value_constants.h"

namespace onyx::shapes {

bool forwardUnknownRank(ShapeContext& ctx, size_t in, size_t out, DataType elem) {
  if (ctx.inputShape(in)) return false;
  ctx.setOutputUnknownRank(out, elem, ctx.rankOriginOf(in));
  return true;
}

IntsArgument intsArgument(const ShapeContext& ctx, std::string_view attribute, size_t inputIndex,
                          int64_t inputSince) {
  IntsArgument argument;
  if (ctx.opset() >= inputSince || (!ctx.hasAttr(attribute) && ctx.hasInput(inputIndex))) {
    if (!ctx.hasInput(inputIndex)) return argument;
    const auto& value = ctx.inputValue(inputIndex);
    if (value) {
      argument.dims = *value;
      if (auto ints = staticValues(*value)) {
        argument.state = IntsArgument::State::Known;
        argument.values = std::move(*ints);
        return argument;
      }
    }
    argument.state = IntsArgument::State::Runtime;
    return argument;
  }
  if (auto ints = ctx.attrInts(attribute)) {
    argument.state = IntsArgument::State::Known;
    argument.values = std::move(*ints);
    argument.dims = dimsFromInts(argument.values);
  }
  return argument;
}

std::string runtimeReason(const ShapeContext& ctx, size_t input, std::string_view what) {
  const Value* value = ctx.node().input(input);
  return ctx.node().opType() + ": " + std::string(what) + " comes from runtime tensor '" +
         (value ? value->name() : std::string("?")) + "'";
}

Expected<std::vector<size_t>> normalizeAxes(const ShapeContext& ctx, const std::vector<int64_t>& axes, size_t rank) {
  std::vector<size_t> normalized;
  normalized.reserve(axes.size());
  for (int64_t axis : axes) {
    auto n = ctx.normalizeAxis(axis, rank);
    if (!n) return n.error();
    if (std::find(normalized.begin(), normalized.end(), *n) != normalized.end()) {
      return ctx.error("axis " + std::to_string(axis) + " is given twice");
    }
    normalized.push_back(*n);
  }
  return normalized;
}

bool trackableValueShape(const Shape& shape) {
  auto count = staticElementCount(shape);
  return count && *count <= kMaxValueElements;
}

std::optional<std::vector<Dim>> rearrangeValue(const std::vector<Dim>& value, const std::vector<int64_t>& inDims,
                                               const std::vector<int64_t>& outDims,
                                               const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& source) {
  // Counts past kMaxValueElements are not tracked; checked as they grow, so they never overflow (fuzz_shapes:
  // a Transpose of huge dims overflowed int64 under UBSan).
  auto countOf = [](const std::vector<int64_t>& dims) -> std::optional<int64_t> {
    int64_t count = 1;
    for (int64_t d : dims) {
      if (d < 0) return std::nullopt;
      if (d == 0) return int64_t(0);
      if (count > kMaxValueElements / d) return std::nullopt;
      count *= d;
    }
    return count;
  };
  const auto inCount = countOf(inDims), outCount = countOf(outDims);
  if (!inCount || !outCount || *inCount != static_cast<int64_t>(value.size())) return std::nullopt;
  std::vector<Dim> out;
  out.reserve(size_t(*outCount));
  std::vector<int64_t> index(outDims.size(), 0);
  for (int64_t flat = 0; flat < *outCount; ++flat) {
    std::vector<int64_t> from = source(index);
    int64_t offset = 0;
    for (size_t k = 0; k < inDims.size(); ++k) {
      if (from[k] < 0 || from[k] >= inDims[k]) return std::nullopt;
      offset = offset * inDims[k] + from[k];
    }
    out.push_back(value[offset]);
    for (size_t k = outDims.size(); k-- > 0;) {
      if (++index[k] < outDims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

Expected<void> inferSameAsInput0(ShapeContext& ctx) {
  InferredValue out;
  out.type = ctx.inputType(0);
  out.rankOrigin = out.type.isTensor() && !out.type.shape() ? ctx.rankOriginOf(0) : nullptr;
  if (out.type.isNone()) out.rankOrigin = ctx.rankOriginOf(0);
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> inferUnary(ShapeContext& ctx) {
  auto done = inferSameAsInput0(ctx);
  DataType elem = ctx.inputElemType(0);
  static const std::set<std::string, std::less<>> kRealUnary = {"Floor", "Ceil", "Round", "Sqrt", "Neg", "Abs", "Reciprocal", "Relu"};
  if (tracksRealValues(elem) && kRealUnary.count(ctx.node().opType()) && ctx.outputSet(0) && ctx.input(0).type.shape() && trackableValueShape(*ctx.input(0).type.shape())) {
    if (auto real = ctx.inputReal(0)) {
      std::vector<RealElement> out;
      for (const RealElement& x : *real) out.push_back(realUnary(ctx.node().opType(), x, elem));
      ctx.setOutputReal(0, std::move(out));
      return done;
    }
  }
  const auto& value = ctx.inputValue(0);
  if (!value) return done;
  const std::string& op = ctx.node().opType();
  std::vector<Dim> out;
  if (op == "Neg") {
    for (const Dim& d : *value) out.push_back(dimSub(Dim(0), d));
  } else if (op == "Abs") {
    for (const Dim& d : *value) {
      auto nonNegative = d.isUnknown() ? std::nullopt : d.expr().provablyNonNegative();
      out.push_back(nonNegative == true ? d : (d.value() ? Dim(std::abs(*d.value())) : ctx.unknownDim("Abs: sign of the value is unknown")));
    }
  } else if (op == "Ceil" || op == "Floor" || op == "Round" || op == "Relu" || op == "Clip") {
    if (op == "Relu" || op == "Clip") return done;  // values are integral already but clipping needs bounds
    out = *value;  // integral values are fixed points of rounding
  } else if (op == "Sign") {
    for (const Dim& d : *value) {
      if (auto v = d.value()) out.push_back(Dim(*v > 0 ? 1 : (*v < 0 ? -1 : 0)));
      else return done;
    }
  } else {
    return done;
  }
  ctx.setOutputValue(0, std::move(out));
  return done;
}

Expected<void> inferBroadcastPair(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const size_t inputs[] = {0, 1};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, std::move(*shape));
  return {};
}

Expected<void> inferUnaryToBool(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::Bool)) return {};
  ctx.setOutputTensor(0, DataType::Bool, *ctx.inputShape(0));
  return {};
}

namespace {

std::optional<std::vector<Dim>> arithmeticValue(ShapeContext& ctx, const std::string& op, DataType elem) {
  const auto& a = ctx.inputValue(0);
  const auto& b = ctx.inputValue(1);
  if (!a || !b) return std::nullopt;
  bool integral = isInteger(elem);
  if (op == "Add") return mapValues(a, b, dimAdd);
  if (op == "Sub") return mapValues(a, b, dimSub);
  if (op == "Mul") return mapValues(a, b, dimMul);
  if (op == "Div") {
    bool failed = false;
    auto out = mapValues(a, b, [&](const Dim& x, const Dim& y) {
      if (integral) return dimTruncDiv(x, y);
      auto vx = x.value(), vy = y.value();
      if (vx && vy && *vy != 0 && *vx % *vy == 0) return Dim(*vx / *vy);
      // A float quotient that is not a whole number cannot be tracked as a dim.
      Dim quotient = dimFloorDiv(x, y);
      if (!x.isUnknown() && !y.isUnknown() && dimMul(quotient, y).expr() == x.expr()) return quotient;
      failed = true;
      return Dim();
    });
    return failed ? std::nullopt : out;
  }
  if (op == "Mod") {
    bool fmod = ctx.attrInt("fmod", 0) != 0;
    return mapValues(a, b, fmod ? dimTruncMod : dimFloorMod);
  }
  if (op == "Pow") {
    bool failed = false;
    auto out = mapValues(a, b, [&](const Dim& x, const Dim& y) {
      auto vx = x.value(), vy = y.value();
      if (!vx || !vy || *vy < 0 || *vy > 62) {
        failed = true;
        return Dim();
      }
      int64_t result = 1;
      for (int64_t i = 0; i < *vy; ++i) result *= *vx;
      return Dim(result);
    });
    return failed ? std::nullopt : out;
  }
  return std::nullopt;
}

// Float Add/Sub/Mul/Div as the kernels compute them, symbolic operands as exact rationals.
std::optional<std::vector<RealElement>> realArithmeticValue(ShapeContext& ctx, const std::string& op, DataType elem) {
  RealElement (*combine)(const RealElement&, const RealElement&, DataType) = nullptr;
  if (op == "Add") combine = realAdd;
  else if (op == "Sub") combine = realSub;
  else if (op == "Mul") combine = realMul;
  else if (op == "Div") combine = realDiv;
  else return std::nullopt;
  return mapValues(ctx.inputReal(0), ctx.inputReal(1),
                   [&](const RealElement& a, const RealElement& b) { return combine(a, b, elem); });
}

}  // namespace

Expected<void> inferArithmetic(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  for (size_t i = 0; i < 2; ++i) {
    if (forwardUnknownRank(ctx, i, 0, elem)) return {};
  }
  const size_t inputs[] = {0, 1};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, *shape);
  if (!trackableValueShape(*shape)) return {};
  if (tracksRealValues(elem)) {
    if (auto real = realArithmeticValue(ctx, ctx.node().opType(), elem)) {
      ctx.setOutputReal(0, std::move(*real));
      return {};
    }
  }
  if (auto value = arithmeticValue(ctx, ctx.node().opType(), elem)) ctx.setOutputValue(0, std::move(*value));
  return {};
}

}  // namespace onyx::shapes
