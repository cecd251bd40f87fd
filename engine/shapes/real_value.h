#pragma once
// Elements of small floating-point tensors that carry sizes: detection and segmentation exports compute
// their resize and pad sizes from the input dims in float arithmetic (Cast to float, Div, Min, Floor, Cast
// back). An element is a number computed exactly as the CPU kernels compute it (float32 rounding for float
// tensors), or, while symbols are unbound, an exact rational numerator/denominator over the dims whose
// floor, ceil or truncation becomes an integer dim expression again.
//
// Whole numbers stay in InferredValue::value as dims (what integer shape arithmetic reads); only tensors
// with a fractional element carry InferredValue::real.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/data_type.h"
#include "ir/dim.h"

namespace onyx {

struct RealElement {
  enum class Kind { Unknown, Number, Rational };
  Kind kind = Kind::Unknown;
  double number = 0;  // Number: the value the kernels compute, already rounded to the element type
  // Rational: numerator / denominator, the denominator positive (a product of dims or a positive constant).
  SymExpr numerator;
  SymExpr denominator = 1;
  // Unknown: where the value was lost (the origin of the unknown dim it came from), when known.
  std::shared_ptr<const DimOrigin> origin;

  static RealElement unknown(std::shared_ptr<const DimOrigin> origin = nullptr) {
    RealElement element;
    element.origin = std::move(origin);
    return element;
  }
  static RealElement fromNumber(double value) {
    RealElement element;
    element.kind = Kind::Number;
    element.number = value;
    return element;
  }
  static RealElement fromDim(const Dim& dim);
  // a/b, normalized: a whole-number quotient becomes a rational with denominator 1.
  static RealElement fraction(SymExpr numerator, SymExpr denominator);

  bool isKnown() const { return kind != Kind::Unknown; }
  // The element as an integer dim when it is a whole number; nullopt otherwise.
  std::optional<Dim> wholeDim() const;
  // `1.66666663`, `800/min(H, W)`, `?`.
  std::string toString() const;
};

// Element types whose values are tracked as real elements (float and double; 16-bit floats are not).
bool tracksRealValues(DataType elem);

// Arithmetic as the CPU kernels do it for `elem` (float32 rounding for Float); Unknown when an operand is
// unknown or the result has no exact rational form (Sqrt of a symbol, a division by a sign-unknown value).
RealElement realAdd(const RealElement& a, const RealElement& b, DataType elem);
RealElement realSub(const RealElement& a, const RealElement& b, DataType elem);
RealElement realMul(const RealElement& a, const RealElement& b, DataType elem);
RealElement realDiv(const RealElement& a, const RealElement& b, DataType elem);
RealElement realMin(const RealElement& a, const RealElement& b, DataType elem);
RealElement realMax(const RealElement& a, const RealElement& b, DataType elem);
// Unary ops by ONNX name: Floor, Ceil, Round, Sqrt, Neg, Abs, Reciprocal, Relu; Unknown for others.
RealElement realUnary(const std::string& op, const RealElement& x, DataType elem);
// Rounding to `elem` (a Cast from double to float, or from an integer).
RealElement realRound(const RealElement& x, DataType elem);
// Cast to an integer type: truncation towards zero. Unknown dim (with the reason) when it cannot be known.
std::optional<Dim> realToInteger(const RealElement& x);

}  // namespace onyx
