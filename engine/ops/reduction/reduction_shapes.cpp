// Shape functions of reductions over axes, ArgMax/ArgMin and TopK.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

// The opset from which the op takes its axes as an input rather than an attribute.
int64_t axesInputSince(const std::string& op) { return op == "ReduceSum" ? 13 : 18; }

Expected<void> inferReduce(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  auto axes = intsArgument(ctx, "axes", 1, axesInputSince(ctx.node().opType()));
  if (axes.state == IntsArgument::State::Runtime) {
    std::string reason = runtimeReason(ctx, 1, "the reduced axes");
    if (keepDims) return ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size(), reason)), Expected<void>();
    const auto& axesShape = ctx.inputShape(1);
    auto count = axesShape && axesShape->size() == 1 ? (*axesShape)[0].value() : std::nullopt;
    if (count && *count <= static_cast<int64_t>(in.size())) {
      ctx.setOutputTensor(0, elem, ctx.unknownDims(in.size() - *count, reason));
    } else {
      ctx.setOutputUnknownRank(0, elem, ctx.origin(reason));
    }
    return {};
  }
  std::vector<bool> reduced(in.size(), false);
  if (!axes.present() || axes.values.empty()) {
    bool noop = ctx.attrInt("noop_with_empty_axes", 0) != 0;
    if (noop) return inferSameAsInput0(ctx);
    reduced.assign(in.size(), true);
  } else {
    auto normalized = normalizeAxes(ctx, axes.values, in.size());
    if (!normalized) return normalized.error();
    for (size_t axis : *normalized) reduced[axis] = true;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i]) out.push_back(in[i]);
    else if (keepDims) out.push_back(Dim(1));
  }
  ctx.setOutputTensor(0, elem, out);
  // Products and sums of a shape vector (ReduceProd of Shape gives the element count).
  const auto& value = ctx.inputValue(0);
  const std::string& op = ctx.node().opType();
  const auto& real = ctx.input(0).real;  // fractional floats: the min or max of two scales, say
  if (real && !real->empty() && in.size() <= 1 && (op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin")) {
    RealElement total = (*real)[0];
    for (size_t i = 1; i < real->size(); ++i) {
      total = op == "ReduceSum" ? realAdd(total, (*real)[i], elem)
              : op == "ReduceMax" ? realMax(total, (*real)[i], elem)
                                  : realMin(total, (*real)[i], elem);
    }
    ctx.setOutputReal(0, {total});
  }
  if (value && in.size() <= 1 && (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin")) {
    if (value->empty()) return {};
    Dim total = (*value)[0];
    for (size_t i = 1; i < value->size(); ++i) {
      const Dim& d = (*value)[i];
      total = op == "ReduceProd" ? dimMul(total, d)
              : op == "ReduceSum" ? dimAdd(total, d)
              : op == "ReduceMax" ? dimMax(total, d)
                                  : dimMin(total, d);
    }
    ctx.setOutputValue(0, {total});
  }
  return {};
}

Expected<void> inferArgReduce(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::Int64)) return {};
  const Shape& in = *ctx.inputShape(0);
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), in.size());
  if (!axis) return axis.error();
  Shape out = in;
  if (ctx.attrInt("keepdims", 1) != 0) out[*axis] = Dim(1);
  else out.erase(out.begin() + *axis);
  ctx.setOutputTensor(0, DataType::Int64, std::move(out));
  return {};
}

Expected<void> inferTopK(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    ctx.setOutputUnknownRank(1, DataType::Int64, ctx.rankOriginOf(0));
    return {};
  }
  Shape out = *ctx.inputShape(0);
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), out.size());
  if (!axis) return axis.error();
  if (ctx.opset() < 10) {
    out[*axis] = Dim(ctx.attrInt("k", 0));
  } else {
    const auto& k = ctx.inputValue(1);
    if (k && k->size() == 1) {
      out[*axis] = (*k)[0];
    } else {
      out[*axis] = ctx.unknownDim(runtimeReason(ctx, 1, "k"));
    }
  }
  ctx.setOutputTensor(0, elem, out);
  ctx.setOutputTensor(1, DataType::Int64, std::move(out));
  return {};
}

}  // namespace

void registerReductionSchemas(OpRegistry& registry) {
  registry.add({"", "ReduceMax", OpCategory::Reduction, {1, 11, 12, 13, 18, 20}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceMin", OpCategory::Reduction, {1, 11, 12, 13, 18, 20}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceMean", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceSum", OpCategory::Reduction, {1, 11, 13}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceProd", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceL1", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceL2", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceLogSum", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceLogSumExp", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ReduceSumSquare", OpCategory::Reduction, {1, 11, 13, 18}, 1, 2, 1, 1, false, inferReduce});
  registry.add({"", "ArgMax", OpCategory::Reduction, {1, 11, 12, 13}, 1, 1, 1, 1, false, inferArgReduce});
  registry.add({"", "ArgMin", OpCategory::Reduction, {1, 11, 12, 13}, 1, 1, 1, 1, false, inferArgReduce});
  registry.add({"", "TopK", OpCategory::Reduction, {1, 10, 11, 24}, 1, 2, 2, 2, false, inferTopK});
}

}  // namespace onyx
