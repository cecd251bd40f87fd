#include "shapes/real_value.h"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace onyx {

namespace {

constexpr double kLargestExactInteger = 9.0e15;

// The value rounded to the element type, as a kernel writing it would store it.
double roundTo(double value, DataType elem) {
  return elem == DataType::Float ? static_cast<double>(static_cast<float>(value)) : value;
}

// f(a, b) computed in the element type's precision: float32 operations for Float, double otherwise.
template <class F>
double computeIn(DataType elem, double a, double b, F f) {
  if (elem == DataType::Float) return static_cast<double>(f(static_cast<float>(a), static_cast<float>(b)));
  return f(a, b);
}

// A finite double as an exact fraction m / 2^k (floats are dyadic), within limits that keep the symbolic
// arithmetic far from int64 overflow.
std::optional<std::pair<SymExpr, SymExpr>> exactFraction(double value) {
  if (!std::isfinite(value)) return std::nullopt;
  if (value == std::floor(value)) {
    if (std::fabs(value) > kLargestExactInteger) return std::nullopt;
    return std::make_pair(SymExpr(static_cast<int64_t>(value)), SymExpr(1));
  }
  int exponent = 0;
  double mantissa = std::frexp(value, &exponent);
  auto scaled = static_cast<int64_t>(std::ldexp(mantissa, 53));
  exponent -= 53;
  while (scaled % 2 == 0 && exponent < 0) {
    scaled /= 2;
    ++exponent;
  }
  if (exponent < -40) return std::nullopt;
  return std::make_pair(SymExpr(scaled), SymExpr(int64_t{1} << -exponent));
}

std::optional<std::pair<SymExpr, SymExpr>> asFraction(const RealElement& x) {
  if (x.kind == RealElement::Kind::Number) return exactFraction(x.number);
  if (x.kind == RealElement::Kind::Rational) return std::make_pair(x.numerator, x.denominator);
  return std::nullopt;
}

// The unknown element an operation on `a` and `b` gives: the first unknown operand's origin.
RealElement unknownOf(const RealElement& a, const RealElement& b) {
  return RealElement::unknown(!a.isKnown() ? a.origin : (!b.isKnown() ? b.origin : nullptr));
}

bool sameDenominator(const SymExpr& b, const SymExpr& d) { return b == d; }

// Whether `text` has one of `operators` outside parentheses.
bool hasTopLevel(const std::string& text, std::string_view operators) {
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (depth == 0 && operators.find(c) != std::string_view::npos) return true;
  }
  return false;
}

// A numerator needs parentheses around a sum; a denominator around a product too: `(N + 1)/(H*W)`.
std::string operand(const SymExpr& expr, bool denominator) {
  std::string text = expr.toString();
  bool wrap = hasTopLevel(text, " ") && (denominator || hasTopLevel(text, "+-"));
  if (denominator && !wrap) wrap = hasTopLevel(text, "*/%^");
  return wrap ? "(" + text + ")" : text;
}

}  // namespace

RealElement RealElement::fromDim(const Dim& dim) {
  if (dim.isUnknown()) return unknown(dim.origin());
  if (auto value = dim.value()) return fromNumber(static_cast<double>(*value));
  RealElement element;
  element.kind = Kind::Rational;
  element.numerator = dim.expr();
  return element;
}

RealElement RealElement::fraction(SymExpr numerator, SymExpr denominator) {
  if (auto d = denominator.constantValue()) {
    if (*d == 0) return unknown();
    if (*d < 0) {
      numerator = -numerator;
      denominator = -denominator;
    }
  }
  RealElement element;
  element.kind = Kind::Rational;
  if (denominator.constantValue() != 1) {
    SymExpr quotient = SymExpr::floorDiv(numerator, denominator);
    if ((quotient * denominator).provablyEqual(numerator) == true) {
      numerator = quotient;
      denominator = 1;
    }
  }
  element.numerator = std::move(numerator);
  element.denominator = std::move(denominator);
  return element;
}

std::optional<Dim> RealElement::wholeDim() const {
  if (kind == Kind::Number) {
    if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) > kLargestExactInteger) {
      return std::nullopt;
    }
    return Dim(static_cast<int64_t>(number));
  }
  if (kind == Kind::Rational && denominator.constantValue() == 1) return Dim(numerator);
  return std::nullopt;
}

std::string RealElement::toString() const {
  if (kind == Kind::Number) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", number);
    return text;
  }
  if (kind == Kind::Rational) {
    if (denominator.constantValue() == 1) return numerator.toString();
    return operand(numerator, false) + "/" + operand(denominator, true);
  }
  return "?";
}

bool tracksRealValues(DataType elem) { return elem == DataType::Float || elem == DataType::Double; }

RealElement realAdd(const RealElement& a, const RealElement& b, DataType elem) {
  if (!a.isKnown() || !b.isKnown()) return unknownOf(a, b);
  if (a.kind == RealElement::Kind::Number && b.kind == RealElement::Kind::Number) {
    return RealElement::fromNumber(computeIn(elem, a.number, b.number, [](auto x, auto y) { return x + y; }));
  }
  auto fa = asFraction(a), fb = asFraction(b);
  if (!fa || !fb) return RealElement::unknown();
  if (sameDenominator(fa->second, fb->second)) return RealElement::fraction(fa->first + fb->first, fa->second);
  return RealElement::fraction(fa->first * fb->second + fb->first * fa->second, fa->second * fb->second);
}

RealElement realSub(const RealElement& a, const RealElement& b, DataType elem) {
  return realAdd(a, realUnary("Neg", b, elem), elem);
}

RealElement realMul(const RealElement& a, const RealElement& b, DataType elem) {
  if (!a.isKnown() || !b.isKnown()) return unknownOf(a, b);
  if (a.kind == RealElement::Kind::Number && b.kind == RealElement::Kind::Number) {
    return RealElement::fromNumber(computeIn(elem, a.number, b.number, [](auto x, auto y) { return x * y; }));
  }
  auto fa = asFraction(a), fb = asFraction(b);
  if (!fa || !fb) return RealElement::unknown();
  // A factor equal to the other side's denominator cancels: W * (64/W) is 64.
  if (fa->first == fb->second) return RealElement::fraction(fb->first, fa->second);
  if (fb->first == fa->second) return RealElement::fraction(fa->first, fb->second);
  return RealElement::fraction(fa->first * fb->first, fa->second * fb->second);
}

RealElement realDiv(const RealElement& a, const RealElement& b, DataType elem) {
  if (!a.isKnown() || !b.isKnown()) return unknownOf(a, b);
  if (a.kind == RealElement::Kind::Number && b.kind == RealElement::Kind::Number) {
    return RealElement::fromNumber(computeIn(elem, a.number, b.number, [](auto x, auto y) { return x / y; }));
  }
  auto fa = asFraction(a), fb = asFraction(b);
  if (!fa || !fb) return RealElement::unknown();
  auto [aNumerator, aDenominator] = *fa;
  auto [bNumerator, bDenominator] = *fb;
  if (aDenominator == bDenominator) aDenominator = bDenominator = 1;  // (H/d) / (W/d) is H/W
  // (x/b) / (x/d) is d/b, both denominators being positive already.
  if (aNumerator == bNumerator && aNumerator.constantValue() != 0) return RealElement::fraction(bDenominator, aDenominator);
  // The divisor's numerator becomes part of the denominator, which must stay positive: a constant of known
  // sign, or an expression over dims (which are non-negative; a zero size would divide by zero at run time too).
  if (auto c = bNumerator.constantValue()) {
    if (*c == 0) return RealElement::unknown();
  } else if (bNumerator.provablyNonNegative() != true) {
    return RealElement::unknown();
  }
  return RealElement::fraction(aNumerator * bDenominator, aDenominator * bNumerator);
}

namespace {

RealElement realExtreme(const RealElement& a, const RealElement& b, DataType elem, bool minimum) {
  if (!a.isKnown() || !b.isKnown()) return unknownOf(a, b);
  if (a.kind == RealElement::Kind::Number && b.kind == RealElement::Kind::Number) {
    return RealElement::fromNumber(roundTo(minimum ? std::fmin(a.number, b.number) : std::fmax(a.number, b.number), elem));
  }
  auto fa = asFraction(a), fb = asFraction(b);
  if (!fa || !fb) return RealElement::unknown();
  auto pick = minimum ? SymExpr::min : SymExpr::max;
  if (sameDenominator(fa->second, fb->second)) return RealElement::fraction(pick(fa->first, fb->first), fa->second);
  // Both denominators are positive, so comparing a/b with c/d is comparing a*d with c*b.
  return RealElement::fraction(pick(fa->first * fb->second, fb->first * fa->second), fa->second * fb->second);
}

}  // namespace

RealElement realMin(const RealElement& a, const RealElement& b, DataType elem) { return realExtreme(a, b, elem, true); }
RealElement realMax(const RealElement& a, const RealElement& b, DataType elem) { return realExtreme(a, b, elem, false); }

RealElement realUnary(const std::string& op, const RealElement& x, DataType elem) {
  if (!x.isKnown()) return x;
  if (x.kind == RealElement::Kind::Number) {
    double v = x.number;
    if (elem == DataType::Float) {
      auto f = static_cast<float>(v);
      if (op == "Floor") return RealElement::fromNumber(std::floor(f));
      if (op == "Ceil") return RealElement::fromNumber(std::ceil(f));
      if (op == "Round") return RealElement::fromNumber(std::nearbyint(f));
      if (op == "Sqrt") return RealElement::fromNumber(std::sqrt(f));
      if (op == "Neg") return RealElement::fromNumber(-f);
      if (op == "Abs") return RealElement::fromNumber(std::fabs(f));
      if (op == "Reciprocal") return RealElement::fromNumber(1.0f / f);
      if (op == "Relu") return RealElement::fromNumber(std::fmax(f, 0.0f));
      return RealElement::unknown();
    }
    if (op == "Floor") return RealElement::fromNumber(std::floor(v));
    if (op == "Ceil") return RealElement::fromNumber(std::ceil(v));
    if (op == "Round") return RealElement::fromNumber(std::nearbyint(v));
    if (op == "Sqrt") return RealElement::fromNumber(std::sqrt(v));
    if (op == "Neg") return RealElement::fromNumber(-v);
    if (op == "Abs") return RealElement::fromNumber(std::fabs(v));
    if (op == "Reciprocal") return RealElement::fromNumber(1.0 / v);
    if (op == "Relu") return RealElement::fromNumber(std::fmax(v, 0.0));
    return RealElement::unknown();
  }
  const SymExpr& a = x.numerator;
  const SymExpr& b = x.denominator;
  if (op == "Floor") return RealElement::fraction(SymExpr::floorDiv(a, b), 1);
  if (op == "Ceil") return RealElement::fraction(SymExpr::ceilDiv(a, b), 1);
  if (op == "Neg") return RealElement::fraction(-a, b);
  if (op == "Reciprocal") return realDiv(RealElement::fromNumber(1), x, elem);
  if (op == "Abs" || op == "Relu") return a.provablyNonNegative() == true ? x : RealElement::unknown();
  if (op == "Round" && b.constantValue() == 1) return x;
  return RealElement::unknown();
}

RealElement realRound(const RealElement& x, DataType elem) {
  if (x.kind != RealElement::Kind::Number) return x;
  return RealElement::fromNumber(roundTo(x.number, elem));
}

std::optional<Dim> realToInteger(const RealElement& x) {
  if (x.kind == RealElement::Kind::Number) {
    if (!std::isfinite(x.number) || std::fabs(x.number) > kLargestExactInteger) return std::nullopt;
    return Dim(static_cast<int64_t>(std::trunc(x.number)));
  }
  if (x.kind == RealElement::Kind::Rational) {
    // Truncation is the floor for the non-negative values sizes are; floor prints the familiar way.
    if (x.numerator.provablyNonNegative() == true) return Dim(SymExpr::floorDiv(x.numerator, x.denominator));
    return Dim(SymExpr::truncDiv(x.numerator, x.denominator));
  }
  if (x.origin) return Dim::unknown(x.origin);
  return std::nullopt;
}

}  // namespace onyx
