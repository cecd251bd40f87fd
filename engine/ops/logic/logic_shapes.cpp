// Shape functions of comparisons, boolean logic and Where, deciding small values where the algebra can.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

std::optional<bool> compare(const std::string& op, const Dim& a, const Dim& b) {
  if (a.isUnknown() || b.isUnknown()) return std::nullopt;
  if (op == "Equal") return dimsEqual(a, b);
  if (op == "Less") return a.expr().provablyLess(b.expr());
  if (op == "Greater") return b.expr().provablyLess(a.expr());
  if (op == "LessOrEqual") {
    auto greater = b.expr().provablyLess(a.expr());
    return greater ? std::optional<bool>(!*greater) : std::nullopt;
  }
  if (op == "GreaterOrEqual") {
    auto less = a.expr().provablyLess(b.expr());
    return less ? std::optional<bool>(!*less) : std::nullopt;
  }
  auto x = a.value(), y = b.value();
  if (!x || !y) return std::nullopt;
  if (op == "And") return *x != 0 && *y != 0;
  if (op == "Or") return *x != 0 || *y != 0;
  if (op == "Xor") return (*x != 0) != (*y != 0);
  return std::nullopt;
}

Expected<void> inferComparison(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::Bool) || forwardUnknownRank(ctx, 1, 0, DataType::Bool)) return {};
  const size_t inputs[] = {0, 1};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, DataType::Bool, *shape);
  if (!trackableValueShape(*shape)) return {};
  const std::string& op = ctx.node().opType();
  bool decided = true;
  auto value = mapValues(ctx.inputValue(0), ctx.inputValue(1), [&](const Dim& a, const Dim& b) {
    auto result = compare(op, a, b);
    if (!result) decided = false;
    return Dim(result.value_or(false) ? 1 : 0);
  });
  if (value && decided) ctx.setOutputValue(0, std::move(*value));
  return {};
}

Expected<void> inferWhere(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(1);
  for (size_t i = 0; i < 3; ++i) {
    if (forwardUnknownRank(ctx, i, 0, elem)) return {};
  }
  const size_t inputs[] = {0, 1, 2};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, *shape);
  if (!trackableValueShape(*shape)) return {};
  auto condition = ctx.inputInts(0);
  const auto& x = ctx.inputValue(1);
  const auto& y = ctx.inputValue(2);
  // An empty one among them (an empty broadcast) has no element to pick: v[0] of an empty vector.
  if (!condition || !x || !y || condition->empty() || x->empty() || y->empty()) return {};
  size_t n = std::max({condition->size(), x->size(), y->size()});
  std::vector<Dim> value;
  for (size_t i = 0; i < n; ++i) {
    auto pick = [&](const auto& v) -> const auto& { return v[v.size() == 1 ? 0 : std::min(i, v.size() - 1)]; };
    value.push_back(pick(*condition) != 0 ? pick(*x) : pick(*y));
  }
  ctx.setOutputValue(0, std::move(value));
  return {};
}

}  // namespace

void registerLogicSchemas(OpRegistry& registry) {
  registry.add({"", "Equal", OpCategory::Logic, {1, 7, 11, 13, 19}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "Greater", OpCategory::Logic, {1, 7, 9, 13}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "Less", OpCategory::Logic, {1, 7, 9, 13}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "GreaterOrEqual", OpCategory::Logic, {12, 16}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "LessOrEqual", OpCategory::Logic, {12, 16}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "And", OpCategory::Logic, {1, 7}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "Or", OpCategory::Logic, {1, 7}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "Xor", OpCategory::Logic, {1, 7}, 2, 2, 1, 1, true, inferComparison});
  registry.add({"", "Where", OpCategory::Logic, {9, 16}, 3, 3, 1, 1, true, inferWhere});
}

}  // namespace onyx
