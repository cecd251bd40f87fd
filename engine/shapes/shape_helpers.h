#pragma once
// Building blocks the per-op shape functions (engine/ops/**/*_shapes.cpp) share.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "shapes/dim_math.h"
#include "shapes/shape_context.h"
#include "shapes/value_constants.h"

namespace onyx::shapes {

// When input `in` has no known rank, gives output `out` an unknown rank with the input's origin and returns
// true: the caller then has nothing more to infer for that output.
bool forwardUnknownRank(ShapeContext& ctx, size_t in, size_t out, DataType elem);

// An integer list an op takes as an attribute before opset `inputSince` and as input `inputIndex` from then.
struct IntsArgument {
  enum class State { Absent, Known, Runtime } state = State::Absent;
  std::vector<int64_t> values;  // Known
  std::vector<Dim> dims;        // the input's symbolic value, when it has one (Runtime or Known)
  bool present() const { return state != State::Absent; }
};
IntsArgument intsArgument(const ShapeContext& ctx, std::string_view attribute, size_t inputIndex,
                          int64_t inputSince);
// "Reshape: target shape comes from runtime tensor 'x'".
std::string runtimeReason(const ShapeContext& ctx, size_t input, std::string_view what);

// Normalizes every axis against `rank`; error naming the node when one is out of range or repeated.
Expected<std::vector<size_t>> normalizeAxes(const ShapeContext& ctx, const std::vector<int64_t>& axes, size_t rank);

// Output 0 takes input 0's type (shape and element type); unknown rank is forwarded.
Expected<void> inferSameAsInput0(ShapeContext& ctx);
// Elementwise unary op: output 0 takes input 0's type; Neg/Abs/Identity-like ops keep small values.
Expected<void> inferUnary(ShapeContext& ctx);
// Unary elementwise ops returning bool (IsNaN, IsInf).
Expected<void> inferUnaryToBool(ShapeContext& ctx);
// Inputs 0 and 1 broadcast (numpy rules); the output has input 0's element type (PRelu, SwiGLU).
Expected<void> inferBroadcastPair(ShapeContext& ctx);
// Binary broadcasting arithmetic (Add, Sub, Mul, Div, Mod, Pow, bitwise ops), propagating small values.
Expected<void> inferArithmetic(ShapeContext& ctx);

// Elementwise op over small values with broadcasting of lengths (n against 1); nullopt when a value is
// missing or lengths do not broadcast.
// Elements are dims, or RealElements for float sizes.
template <class Element, class Op>
std::optional<std::vector<Element>> mapValues(const std::optional<std::vector<Element>>& a,
                                              const std::optional<std::vector<Element>>& b, Op op) {
  if (!a || !b) return std::nullopt;
  size_t n = std::max(a->size(), b->size());
  if ((a->size() != n && a->size() != 1) || (b->size() != n && b->size() != 1)) return std::nullopt;
  std::vector<Element> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(op((*a)[a->size() == 1 ? 0 : i], (*b)[b->size() == 1 ? 0 : i]));
  return out;
}

// Whether a value of this shape is small enough to be tracked element by element.
bool trackableValueShape(const Shape& shape);
// Moves a small value's elements: output element at multi-index i comes from input multi-index source(i).
// nullopt when an index falls outside the input or the output is too large to track.
std::optional<std::vector<Dim>> rearrangeValue(const std::vector<Dim>& value, const std::vector<int64_t>& inDims,
                                               const std::vector<int64_t>& outDims,
                                               const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& source);

}  // namespace onyx::shapes
