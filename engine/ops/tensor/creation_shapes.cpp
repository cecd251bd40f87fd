// Shape functions of ops that create tensors: Constant, ConstantOfShape, Range, EyeLike.
#include <cmath>

#include "ops/tensor/tensor_shapes.h"
#include "shapes/shape_limits.h"
#include "shapes/value_constants.h"

namespace onyx::tensor_shapes {

using namespace shapes;

Expected<void> inferConstant(ShapeContext& ctx) {
  if (const Tensor* tensor = ctx.attrTensor("value")) {
    InferredValue out;
    out.type = Type::tensor(tensor->dtype(), dimsFromInts(tensor->dims()));
    out.value = smallTensorValue(*tensor);
    out.constant = tensor;
    ctx.setOutput(0, std::move(out));
    return {};
  }
  if (const Attribute* sparse = ctx.attr("sparse_value")) {
    if (const auto* tensor = std::get_if<SparseTensor>(&sparse->payload())) {
      ctx.setOutputTensor(0, tensor->values.dtype(), dimsFromInts(tensor->dims));
      return {};
    }
  }
  if (const Attribute* attribute = ctx.attr("value_int")) {
    ctx.setOutputTensor(0, DataType::Int64, {});
    if (const int64_t* v = attribute->getInt()) ctx.setOutputValue(0, {Dim(*v)});
    return {};
  }
  if (const Attribute* attribute = ctx.attr("value_ints")) {
    const auto* values = attribute->getInts();
    size_t n = values ? values->size() : 0;
    ctx.setOutputTensor(0, DataType::Int64, {Dim(static_cast<int64_t>(n))});
    if (values && n <= static_cast<size_t>(kMaxValueElements)) ctx.setOutputValue(0, dimsFromInts(*values));
    return {};
  }
  if (ctx.attr("value_float")) return ctx.setOutputTensor(0, DataType::Float, {}), Expected<void>();
  if (const Attribute* attribute = ctx.attr("value_floats")) {
    const auto* values = attribute->getFloats();
    ctx.setOutputTensor(0, DataType::Float, {Dim(static_cast<int64_t>(values ? values->size() : 0))});
    return {};
  }
  if (ctx.attr("value_string")) return ctx.setOutputTensor(0, DataType::String, {}), Expected<void>();
  if (const Attribute* attribute = ctx.attr("value_strings")) {
    const auto* values = attribute->getStrings();
    ctx.setOutputTensor(0, DataType::String, {Dim(static_cast<int64_t>(values ? values->size() : 0))});
    return {};
  }
  return ctx.error("Constant has no value attribute");
}

Expected<void> inferConstantOfShape(ShapeContext& ctx) {
  const Tensor* fill = ctx.attrTensor("value");
  DataType elem = fill ? fill->dtype() : DataType::Float;
  const auto& target = ctx.inputValue(0);
  if (!target) {
    auto rank = declaredShapeLength(ctx, 0);
    if (!rank) return rank.error();
    std::string reason = runtimeReason(ctx, 0, "the shape");
    if (*rank) ctx.setOutputTensor(0, elem, ctx.unknownDims(**rank, reason));
    else ctx.setOutputUnknownRank(0, elem, ctx.origin(reason));
    return {};
  }
  for (const Dim& dim : *target) {
    if (auto v = dim.value(); v && *v < 0) {
      return ctx.error("ConstantOfShape: negative dim " + std::to_string(*v) + " in the shape from " +
                       ctx.describeInput(0));
    }
  }
  Shape shape = *target;
  ctx.setOutputTensor(0, elem, shape);
  // A small filled vector is a value too (masks and shape arithmetic build on them).
  if (trackableValueShape(shape)) {
    auto fillValue = fill ? smallTensorValue(*fill) : std::optional<std::vector<Dim>>(std::vector<Dim>{Dim(0)});
    auto count = staticElementCount(shape);
    if (fillValue && fillValue->size() == 1 && count) ctx.setOutputValue(0, std::vector<Dim>(*count, (*fillValue)[0]));
  }
  return {};
}

Expected<void> inferRange(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& start = ctx.inputValue(0);
  const auto& limit = ctx.inputValue(1);
  const auto& delta = ctx.inputValue(2);
  // Float ranges with fractional bounds: compute from the constants when all three are constants.
  if (!(start && limit && delta)) {
    const Tensor* s = ctx.inputConstant(0);
    const Tensor* l = ctx.inputConstant(1);
    const Tensor* d = ctx.inputConstant(2);
    auto sv = s ? tensorAsDoubles(*s) : std::nullopt;
    auto lv = l ? tensorAsDoubles(*l) : std::nullopt;
    auto dv = d ? tensorAsDoubles(*d) : std::nullopt;
    if (sv && lv && dv && sv->size() == 1 && lv->size() == 1 && dv->size() == 1) {
      // The kernel's checks (ops/tensor/shape_cpu.cpp rangeKernel), so `shapes` and `run` agree.
      double start = (*sv)[0], limit = (*lv)[0], step = (*dv)[0];
      if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(step))
        return ctx.error("Range needs finite bounds");
      if (step == 0) return ctx.error("Range: delta is 0");
      double count = std::ceil((limit - start) / step);
      if (count >= 9.2e18) return ctx.error("Range has more elements than a tensor can hold");
      ctx.setOutputTensor(0, elem, {Dim(count > 0 ? static_cast<int64_t>(count) : 0)});
      return {};
    }
    ctx.setOutputTensor(0, elem, {ctx.unknownDim("Range: bounds come from runtime tensors")});
    return {};
  }
  if (start->size() != 1 || limit->size() != 1 || delta->size() != 1) {
    return ctx.error("Range: start, limit and delta must be scalars");
  }
  const Dim& s = (*start)[0];
  const Dim& l = (*limit)[0];
  const Dim& d = (*delta)[0];
  if (d.value() == 0) return ctx.error("Range: delta is 0");
  Dim length;
  auto sv = s.value(), lv = l.value(), dv = d.value();
  if (sv && lv && dv) {
    int64_t span = *lv - *sv;
    int64_t count = span / *dv + ((span % *dv != 0 && ((span < 0) == (*dv < 0))) ? 1 : 0);
    length = Dim(std::max<int64_t>(count, 0));
  } else if (dv && *dv > 0) {
    // ceil((limit - start)/delta); a negative count would be 0, which the exporters' shapes never reach.
    length = dimCeilDiv(dimSub(l, s), d);
  } else {
    length = ctx.unknownDim("Range: the sign of delta is not known");
  }
  ctx.setOutputTensor(0, elem, {length});
  if (auto n = length.value(); n && *n <= kMaxValueElements && sv && dv) {
    std::vector<Dim> value;
    for (int64_t i = 0; i < *n; ++i) value.emplace_back(*sv + i * *dv);
    ctx.setOutputValue(0, std::move(value));
  }
  return {};
}

Expected<void> inferEyeLike(ShapeContext& ctx) {
  DataType elem = static_cast<DataType>(ctx.attrInt("dtype", static_cast<int64_t>(ctx.inputElemType(0))));
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  if (ctx.inputShape(0)->size() != 2) return ctx.error("EyeLike needs a rank-2 input");
  ctx.setOutputTensor(0, elem, *ctx.inputShape(0));
  return {};
}

}  // namespace onyx::tensor_shapes
