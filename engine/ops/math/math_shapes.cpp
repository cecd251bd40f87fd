// Shape functions of arithmetic (with Clip, PRelu, BitwiseAnd/Or/Xor and Not, whose kernels are the math
// family's), matrix products, Einsum and Det.
#include <map>

#include "catalog/op_registry.h"
#include "ops/math/einsum_equation.h"
#include "ops/math/math_shapes.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace math_shapes {

Expected<void> setMatMulOutput(ShapeContext& ctx, DataType elem, bool transA, bool transB) {
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  Shape a = *ctx.inputShape(0), b = *ctx.inputShape(1);
  if (a.empty() || b.empty()) return ctx.error(ctx.node().opType() + " inputs must not be scalars");
  bool vectorA = a.size() == 1, vectorB = b.size() == 1;
  if (vectorA) a.insert(a.begin(), Dim(1));
  if (vectorB) b.push_back(Dim(1));
  if (transA && !vectorA) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (transB && !vectorB) std::swap(b[b.size() - 1], b[b.size() - 2]);
  auto k = ctx.requireEqual(a.back(), 0, b[b.size() - 2], 1, "the inner dims of a matrix product");
  if (!k) return k.error();
  Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  auto batch = ctx.broadcastShapes(batchA, 0, batchB, 1);
  if (!batch) return batch.error();
  Shape out = *batch;
  if (!vectorA) out.push_back(a[a.size() - 2]);
  if (!vectorB) out.push_back(b.back());
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

}  // namespace math_shapes

namespace {

Expected<void> inferVariadic(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  std::vector<size_t> inputs;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    if (!ctx.hasInput(i)) continue;
    if (forwardUnknownRank(ctx, i, 0, elem)) return {};
    inputs.push_back(i);
  }
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, elem, *shape);
  const std::string& op = ctx.node().opType();
  if ((op == "Max" || op == "Min" || op == "Sum") && !inputs.empty() && trackableValueShape(*shape) && tracksRealValues(elem)) {
    // Float sizes (a resize scale: the min of two ratios) as the kernels compute them.
    auto combine = op == "Max" ? realMax : (op == "Min" ? realMin : realAdd);
    std::optional<std::vector<RealElement>> real = ctx.inputReal(inputs[0]);
    for (size_t k = 1; k < inputs.size() && real; ++k) {
      real = mapValues(real, ctx.inputReal(inputs[k]), [&](const RealElement& a, const RealElement& b) { return combine(a, b, elem); });
    }
    if (real) ctx.setOutputReal(0, std::move(*real));
  } else if ((op == "Max" || op == "Min" || op == "Sum") && !inputs.empty() && trackableValueShape(*shape)) {
    std::optional<std::vector<Dim>> value = ctx.inputValue(inputs[0]);
    for (size_t k = 1; k < inputs.size() && value; ++k) {
      value = mapValues(value, ctx.inputValue(inputs[k]), op == "Max" ? dimMax : (op == "Min" ? dimMin : dimAdd));
    }
    if (value) ctx.setOutputValue(0, std::move(*value));
  }
  return {};
}

Expected<void> inferMatMul(ShapeContext& ctx) {
  DataType elem = ctx.node().opType() == "MatMulInteger" ? DataType::Int32 : ctx.inputElemType(0);
  return math_shapes::setMatMulOutput(ctx, elem, false, false);
}

Expected<void> inferGemm(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const Shape& a = *ctx.inputShape(0);
  const Shape& b = *ctx.inputShape(1);
  if (a.size() != 2 || b.size() != 2) return ctx.error("Gemm inputs A and B must be matrices (rank 2)");
  bool transA = ctx.attrInt("transA", 0) != 0, transB = ctx.attrInt("transB", 0) != 0;
  Dim m = transA ? a[1] : a[0], ka = transA ? a[0] : a[1];
  Dim kb = transB ? b[1] : b[0], n = transB ? b[0] : b[1];
  auto k = ctx.requireEqual(ka, 0, kb, 1, "the inner dims of Gemm");
  if (!k) return k.error();
  ctx.setOutputTensor(0, elem, {m, n});
  return {};
}

Expected<void> inferEinsum(ShapeContext& ctx) {
  const EinsumEquation split = splitEinsumEquation(ctx.attrString("equation"));
  const std::string& equation = split.text;
  const std::vector<std::string>& terms = split.terms;
  DataType elem = ctx.inputElemType(0);
  if (terms.size() != ctx.inputCount()) {
    return ctx.error("Einsum equation '" + equation + "' has " + std::to_string(terms.size()) + " terms for " +
                     std::to_string(ctx.inputCount()) + " inputs");
  }
  std::map<char, Dim> letters;
  std::map<char, int> counts;
  Shape ellipsis;
  bool sawEllipsis = false;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (forwardUnknownRank(ctx, i, 0, elem)) return {};
    const Shape& shape = *ctx.inputShape(i);
    std::string term = terms[i];
    size_t dots = term.find("...");
    size_t named = term.size() - (dots == std::string::npos ? 0 : 3);
    if (named > shape.size() || (dots == std::string::npos && named != shape.size())) {
      return ctx.error("Einsum term '" + term + "' does not match the rank " + std::to_string(shape.size()) +
                       " of " + ctx.describeInput(i));
    }
    size_t ellipsisRank = shape.size() - named;
    size_t dim = 0;
    for (size_t p = 0; p < term.size(); ++p) {
      if (p == dots) {
        Shape part(shape.begin() + dim, shape.begin() + dim + ellipsisRank);
        auto merged = sawEllipsis ? ctx.broadcastShapes(ellipsis, 0, part, i) : Expected<Shape>(part);
        if (!merged) return merged.error();
        ellipsis = *merged;
        sawEllipsis = true;
        dim += ellipsisRank;
        p += 2;
        continue;
      }
      char letter = term[p];
      ++counts[letter];
      auto found = letters.find(letter);
      if (found == letters.end()) {
        letters.emplace(letter, shape[dim]);
      } else if (found->second.value() == 1) {
        found->second = shape[dim];
      } else if (shape[dim].value() != 1) {
        auto same = ctx.requireEqual(found->second, 0, shape[dim], i, std::string("Einsum index '") + letter + "'");
        if (!same) return same.error();
        found->second = *same;
      }
      ++dim;
    }
  }
  Shape out;
  if (split.output) {
    const std::string& rhs = *split.output;
    for (size_t p = 0; p < rhs.size(); ++p) {
      if (rhs.compare(p, 3, "...") == 0) {
        out.insert(out.end(), ellipsis.begin(), ellipsis.end());
        p += 2;
        continue;
      }
      auto found = letters.find(rhs[p]);
      if (found == letters.end()) return ctx.error(std::string("Einsum output index '") + rhs[p] + "' is not an input index");
      out.push_back(found->second);
    }
  } else {
    out = ellipsis;
    for (const auto& [letter, dim] : letters) {
      if (counts[letter] == 1) out.push_back(dim);
    }
  }
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferDet(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& shape = *ctx.inputShape(0);
  if (shape.size() < 2) return ctx.error("Det needs an input of rank >= 2");
  ctx.setOutputTensor(0, elem, Shape(shape.begin(), shape.end() - 2));
  return {};
}

// PRelu's slope broadcasts to X (unidirectionally): the output has X's shape, checked against the slope.
// Before opset 7 the slope broadcast along the channel axis (a [C] slope for [N, C, ...]).
Expected<void> inferPRelu(ShapeContext& ctx) {
  if (ctx.opset() < 7) return inferSameAsInput0(ctx);
  return inferBroadcastPair(ctx);
}

// Not: the logical negation, of a small known value too.
Expected<void> inferNot(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::Bool)) return {};
  ctx.setOutputTensor(0, DataType::Bool, *ctx.inputShape(0));
  if (auto ints = ctx.inputInts(0)) {
    std::vector<Dim> value;
    for (int64_t v : *ints) value.emplace_back(v != 0 ? 0 : 1);
    ctx.setOutputValue(0, std::move(value));
  }
  return {};
}

}  // namespace

void registerMathSchemas(OpRegistry& registry) {
  registry.add({"", "Sqrt", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Exp", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Log", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Neg", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Abs", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Reciprocal", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Ceil", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Floor", OpCategory::Elementwise, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Round", OpCategory::Elementwise, {11, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Sign", OpCategory::Elementwise, {9, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Cos", OpCategory::Elementwise, {7, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Sin", OpCategory::Elementwise, {7, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Tan", OpCategory::Elementwise, {7, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Acos", OpCategory::Elementwise, {7, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Asin", OpCategory::Elementwise, {7, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Atan", OpCategory::Elementwise, {7, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Cosh", OpCategory::Elementwise, {9, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Sinh", OpCategory::Elementwise, {9, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Asinh", OpCategory::Elementwise, {9, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Acosh", OpCategory::Elementwise, {9, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Atanh", OpCategory::Elementwise, {9, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Erf", OpCategory::Elementwise, {9, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "BitwiseNot", OpCategory::Elementwise, {18}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "BitwiseAnd", OpCategory::Logic, {18}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "BitwiseOr", OpCategory::Logic, {18}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "BitwiseXor", OpCategory::Logic, {18}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Not", OpCategory::Logic, {1}, 1, 1, 1, 1, true, inferNot});
  registry.add({"", "Clip", OpCategory::Activation, {1, 6, 11, 12, 13}, 1, 3, 1, 1, true, inferUnary});
  registry.add({"", "PRelu", OpCategory::Activation, {1, 6, 7, 9, 16}, 2, 2, 1, 1, true, inferPRelu});
  registry.add({"", "IsInf", OpCategory::Elementwise, {10, 20}, 1, 1, 1, 1, true, inferUnaryToBool});
  registry.add({"", "IsNaN", OpCategory::Elementwise, {9, 13, 20}, 1, 1, 1, 1, true, inferUnaryToBool});
  registry.add({"", "Add", OpCategory::Elementwise, {1, 6, 7, 13, 14}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Sub", OpCategory::Elementwise, {1, 6, 7, 13, 14}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Mul", OpCategory::Elementwise, {1, 6, 7, 13, 14}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Div", OpCategory::Elementwise, {1, 6, 7, 13, 14}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Mod", OpCategory::Elementwise, {10, 13}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Pow", OpCategory::Elementwise, {1, 7, 12, 13, 15}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "BitShift", OpCategory::Elementwise, {11}, 2, 2, 1, 1, true, inferArithmetic});
  registry.add({"", "Sum", OpCategory::Elementwise, {1, 6, 8, 13}, 1, OpSchema::kVariadic, 1, 1, true, inferVariadic});
  registry.add({"", "Mean", OpCategory::Elementwise, {1, 6, 8, 13}, 1, OpSchema::kVariadic, 1, 1, true, inferVariadic});
  registry.add({"", "Max", OpCategory::Elementwise, {1, 6, 8, 12, 13}, 1, OpSchema::kVariadic, 1, 1, true, inferVariadic});
  registry.add({"", "Min", OpCategory::Elementwise, {1, 6, 8, 12, 13}, 1, OpSchema::kVariadic, 1, 1, true, inferVariadic});
  registry.add({"", "MatMul", OpCategory::Layer, {1, 9, 13}, 2, 2, 1, 1, false, inferMatMul});
  registry.add({"", "Gemm", OpCategory::Layer, {1, 6, 7, 9, 11, 13}, 2, 3, 1, 1, false, inferGemm});
  registry.add({"", "Einsum", OpCategory::Layer, {12}, 1, OpSchema::kVariadic, 1, 1, false, inferEinsum});
  registry.add({"", "CumSum", OpCategory::Elementwise, {11, 14}, 2, 2, 1, 1, false, inferSameAsInput0});
  registry.add({"", "CumProd", OpCategory::Elementwise, {26}, 2, 2, 1, 1, false, inferSameAsInput0});
  registry.add({"", "Det", OpCategory::Elementwise, {11, 22}, 1, 1, 1, 1, false, inferDet});
}

}  // namespace onyx
