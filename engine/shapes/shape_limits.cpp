#include "shapes/shape_limits.h"

#include "util/limits.h"

namespace onyx {

Expected<std::optional<size_t>> declaredShapeLength(const ShapeContext& ctx, size_t i) {
  const auto& shape = ctx.inputShape(i);
  auto length = shape && shape->size() == 1 ? (*shape)[0].value() : std::nullopt;
  if (!length) return std::optional<size_t>();
  auto checked = checkShapeLength(*length, "shape input " + ctx.describeInput(i), "");
  if (!checked) return ctx.limitError(checked.error().message);
  return std::optional<size_t>(size_t(*length));
}

}  // namespace onyx
