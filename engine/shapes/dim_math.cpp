#include "shapes/dim_math.h"

namespace onyx {

namespace {

template <class Op>
Dim combine(const Dim& a, const Dim& b, Op op) {
  if (a.isUnknown()) return Dim::unknown(a.origin());
  if (b.isUnknown()) return Dim::unknown(b.origin());
  return Dim(op(a.expr(), b.expr()));
}

}  // namespace

Dim dimAdd(const Dim& a, const Dim& b) {
  return combine(a, b, [](const SymExpr& x, const SymExpr& y) { return x + y; });
}
Dim dimSub(const Dim& a, const Dim& b) {
  return combine(a, b, [](const SymExpr& x, const SymExpr& y) { return x - y; });
}
Dim dimMul(const Dim& a, const Dim& b) {
  return combine(a, b, [](const SymExpr& x, const SymExpr& y) { return x * y; });
}
Dim dimFloorDiv(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::floorDiv); }
Dim dimCeilDiv(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::ceilDiv); }
Dim dimTruncDiv(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::truncDiv); }
Dim dimFloorMod(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::floorMod); }
Dim dimTruncMod(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::truncMod); }
Dim dimMin(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::min); }
Dim dimMax(const Dim& a, const Dim& b) { return combine(a, b, SymExpr::max); }

Dim dimProduct(std::span<const Dim> dims) {
  if (const Dim* unknown = firstUnknown(dims)) return Dim::unknown(unknown->origin());
  SymExpr product(int64_t{1});
  for (const Dim& dim : dims) product *= dim.expr();
  return Dim(product);
}

const Dim* firstUnknown(std::span<const Dim> dims) {
  for (const Dim& dim : dims) {
    if (dim.isUnknown()) return &dim;
  }
  return nullptr;
}

std::optional<bool> dimsEqual(const Dim& a, const Dim& b) {
  if (a.isUnknown() || b.isUnknown()) return std::nullopt;
  if (a.expr() == b.expr()) return true;
  if (a.isStatic() && b.isStatic()) return false;
  return a.expr().provablyEqual(b.expr());
}

std::optional<std::vector<int64_t>> staticValues(std::span<const Dim> dims) {
  std::vector<int64_t> values;
  values.reserve(dims.size());
  for (const Dim& dim : dims) {
    auto value = dim.value();
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

std::vector<Dim> dimsFromInts(std::span<const int64_t> values) {
  return std::vector<Dim>(values.begin(), values.end());
}

}  // namespace onyx
