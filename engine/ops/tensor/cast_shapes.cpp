// Cast and CastLike's shape functions: the input's shape with the target element type; a known small
// integer value converts with it (to bool: non-zero is 1).
#include "ops/tensor/tensor_shapes.h"

namespace onyx::tensor_shapes {

namespace {

Expected<void> castTo(ShapeContext& ctx, DataType to) {
  InferredValue out;
  out.type = ctx.inputType(0);
  if (out.type.isNone()) out.type = Type::tensor(to);
  out.type.setElemType(to);
  out.rankOrigin = out.type.shape() ? nullptr : ctx.rankOriginOf(0);
  bool sized = out.type.shape() && staticElementCount(*out.type.shape()).value_or(kMaxValueElements + 1) <= kMaxValueElements;
  if (sized && (tracksRealValues(to) || isInteger(to)) && (ctx.input(0).real || (ctx.input(0).constant && !ctx.input(0).value && isFloatingPoint(ctx.inputElemType(0))))) {
    // Fractional floats: to float they round to the target precision; to an integer they truncate, and
    // a symbolic fraction becomes floor(numerator/denominator).
    auto real = ctx.inputReal(0);
    if (real) {
      ctx.setOutput(0, std::move(out));
      if (tracksRealValues(to)) {
        for (RealElement& element : *real) element = realRound(element, to);
        ctx.setOutputReal(0, std::move(*real));
      } else {
        std::vector<Dim> value;
        for (const RealElement& element : *real) {
          auto dim = realToInteger(element);
          value.push_back(dim ? *dim : ctx.unknownDim("Cast: the value is not a finite number"));
        }
        ctx.setOutputValue(0, std::move(value));
      }
      return {};
    }
  }
  if (to != DataType::String && ctx.inputValue(0)) {
    if (to == DataType::Bool) {
      std::vector<Dim> value;
      for (const Dim& d : *ctx.inputValue(0)) {
        auto v = d.value();
        if (!v) return ctx.setOutput(0, std::move(out)), Expected<void>();
        value.push_back(Dim(*v != 0 ? 1 : 0));
      }
      out.value = std::move(value);
    } else {
      out.value = ctx.inputValue(0);
    }
  }
  ctx.setOutput(0, std::move(out));
  return {};
}

}  // namespace

Expected<void> inferCast(ShapeContext& ctx) {
  return castTo(ctx, static_cast<DataType>(ctx.attrInt("to", static_cast<int64_t>(DataType::Float))));
}

Expected<void> inferCastLike(ShapeContext& ctx) { return castTo(ctx, ctx.inputElemType(1)); }

}  // namespace onyx::tensor_shapes
