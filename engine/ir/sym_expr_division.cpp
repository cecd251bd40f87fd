// SymExpr's floor and truncating division and modulo: constant folding, exact division of a polynomial by a
// constant (splitting off whole multiples, cancelling common factors, merging nested divisions) and the
// sign rules that reduce truncation to floor. The node algebra they build on is in sym_expr.cpp.
#include <numeric>
#include <optional>
#include <utility>

#include "ir/sym_expr.h"
#include "ir/sym_expr_internal.h"

namespace onyx {
namespace {

using sym_expr_detail::checkedMul;
using sym_expr_detail::constantTerm;
using sym_expr_detail::floorDivide;
using sym_expr_detail::floorRemainder;
using sym_expr_detail::fromOptional;
using sym_expr_detail::fromPoly;
using sym_expr_detail::Interval;
using sym_expr_detail::isUndefined;
using sym_expr_detail::Kind;
using sym_expr_detail::kInt64Min;
using sym_expr_detail::leadingCoefficient;
using sym_expr_detail::makeOperator;
using sym_expr_detail::NodePtr;
using sym_expr_detail::offsetAtom;
using sym_expr_detail::Poly;
using sym_expr_detail::provablyNonZero;
using sym_expr_detail::rangeOf;
using sym_expr_detail::Term;
using sym_expr_detail::termsOf;
using sym_expr_detail::truncDivide;
using sym_expr_detail::truncRemainder;
using sym_expr_detail::undefinedExpr;

// a = divisor*quotient + remainder, with every coefficient and the constant of remainder in [0, divisor).
void splitByDivisor(const SymExpr& a, int64_t divisor, Poly& quotient, Poly& remainder) {
  Term single;
  for (const Term& term : termsOf(a, single)) {
    int64_t q = *floorDivide(term.coefficient, divisor), r = *floorRemainder(term.coefficient, divisor);
    if (q != 0) quotient.terms.push_back({q, term.monomial});
    if (r != 0) remainder.terms.push_back({r, term.monomial});
  }
  quotient.constant = *floorDivide(constantTerm(a), divisor);
  remainder.constant = *floorRemainder(constantTerm(a), divisor);
}

// Divides remainder and divisor by the gcd of divisor and the remainder's coefficients; returns that gcd.
int64_t reduceByCommonFactor(Poly& remainder, int64_t& divisor) {
  int64_t common = divisor;
  for (const Term& term : remainder.terms) common = std::gcd(common, term.coefficient);
  for (Term& term : remainder.terms) term.coefficient /= common;
  remainder.constant /= common;  // floor, as the constant is >= 0
  divisor /= common;
  return common;
}

SymExpr floorDivByPositive(const SymExpr& a, int64_t divisor) {
  Poly quotient, remainder;
  splitByDivisor(a, divisor, quotient, remainder);
  SymExpr whole = fromPoly(std::move(quotient));
  if (remainder.terms.empty()) return whole;  // the remaining constant lies in [0, divisor)
  // floor((g*x + r)/(g*d)) == floor((x + floor(r/g))/d).
  reduceByCommonFactor(remainder, divisor);
  SymExpr numerator = fromPoly(std::move(remainder));
  int64_t offset = 0;
  if (const NodePtr* inner = offsetAtom(numerator, Kind::kFloorDiv, offset)) {
    // floor((floor(x/m) + c)/d) == floor((x + c*m)/(m*d)) for positive m and d.
    std::optional<int64_t> m = (*inner)->args[1].constantValue();
    std::optional<int64_t> shift = m && *m > 0 ? checkedMul(offset, *m) : std::nullopt;
    std::optional<int64_t> combined = shift ? checkedMul(*m, divisor) : std::nullopt;
    if (combined) return whole + SymExpr::floorDiv((*inner)->args[0] + *shift, *combined);
  }
  Interval range = rangeOf(numerator);
  if (range.lo >= 0 && range.hi < divisor) return whole;
  return whole + makeOperator(Kind::kFloorDiv, {numerator, divisor});
}

SymExpr floorModByPositive(const SymExpr& a, int64_t divisor) {
  Poly quotient, remainder;
  splitByDivisor(a, divisor, quotient, remainder);
  if (remainder.terms.empty()) return remainder.constant;
  // (g*x + r) mod (g*d) == g*((x + floor(r/g)) mod d) + r mod g.
  int64_t lowPart = remainder.constant;
  int64_t common = reduceByCommonFactor(remainder, divisor);
  lowPart %= common;
  SymExpr numerator = fromPoly(std::move(remainder));
  SymExpr reduced;
  int64_t offset = 0;
  const NodePtr* inner = offsetAtom(numerator, Kind::kFloorMod, offset);
  std::optional<int64_t> innerDivisor = inner ? (*inner)->args[1].constantValue() : std::nullopt;
  Interval range = rangeOf(numerator);
  if (innerDivisor && *innerDivisor % divisor == 0) {
    // (x mod m + c) mod d == (x + c) mod d when d divides m.
    reduced = SymExpr::floorMod((*inner)->args[0] + offset, divisor);
  } else if (range.lo >= 0 && range.hi < divisor) {
    reduced = numerator;
  } else {
    reduced = makeOperator(Kind::kFloorMod, {numerator, divisor});
  }
  return common * reduced + lowPart;
}

}  // namespace

SymExpr SymExpr::floorDiv(const SymExpr& a, const SymExpr& b) {
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  if (std::optional<int64_t> divisor = b.constantValue()) {
    if (*divisor == 0) return undefinedExpr();
    if (std::optional<int64_t> dividend = a.constantValue())
      return fromOptional(floorDivide(*dividend, *divisor));
    if (*divisor == 1) return a;
    if (*divisor == -1) return -a;
    if (*divisor > 0) return floorDivByPositive(a, *divisor);
    if (*divisor != kInt64Min) return floorDiv(-a, -*divisor);  // floor(a/b) == floor(-a/-b)
  } else if (a == b && provablyNonZero(b)) {
    return 1;
  } else if (rangeOf(a).lo >= 0 && a.provablyLess(b) == true) {
    return 0;
  }
  return makeOperator(Kind::kFloorDiv, {a, b});
}

SymExpr SymExpr::ceilDiv(const SymExpr& a, const SymExpr& b) {
  std::optional<int64_t> divisor = b.constantValue();
  if (divisor && *divisor > 0) return floorDiv(a + (*divisor - 1), b);
  return -floorDiv(-a, b);  // ceil(a/b) == -floor(-a/b)
}

SymExpr SymExpr::floorMod(const SymExpr& a, const SymExpr& b) {
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  if (std::optional<int64_t> divisor = b.constantValue()) {
    if (*divisor == 0) return undefinedExpr();
    if (std::optional<int64_t> dividend = a.constantValue())
      return fromOptional(floorRemainder(*dividend, *divisor));
    if (*divisor == 1 || *divisor == -1) return 0;
    if (*divisor > 0) return floorModByPositive(a, *divisor);
    if (*divisor != kInt64Min) return -floorMod(-a, -*divisor);  // the result takes the divisor's sign
  } else if (a == b && provablyNonZero(b)) {
    return 0;
  } else if (rangeOf(a).lo >= 0 && a.provablyLess(b) == true) {
    return a;
  }
  return makeOperator(Kind::kFloorMod, {a, b});
}

SymExpr SymExpr::truncDiv(const SymExpr& a, const SymExpr& b) {
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  if (std::optional<int64_t> divisor = b.constantValue()) {
    if (*divisor == 0) return undefinedExpr();
    if (std::optional<int64_t> dividend = a.constantValue())
      return fromOptional(truncDivide(*dividend, *divisor));
    if (*divisor == 1) return a;
    if (*divisor < 0 && *divisor != kInt64Min) return -truncDiv(a, -*divisor);
  }
  // Where the signs are known, truncation is a floor; a zero divisor leaves both sides undefined.
  if (rangeOf(b).lo >= 0) {
    if (rangeOf(a).lo >= 0) return floorDiv(a, b);
    if (rangeOf(a).hi <= 0) return -floorDiv(-a, b);
  }
  if (leadingCoefficient(a) < 0) return -truncDiv(-a, b);
  return makeOperator(Kind::kTruncDiv, {a, b});
}

SymExpr SymExpr::truncMod(const SymExpr& a, const SymExpr& b) {
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  if (std::optional<int64_t> divisor = b.constantValue()) {
    if (*divisor == 0) return undefinedExpr();
    if (std::optional<int64_t> dividend = a.constantValue())
      return fromOptional(truncRemainder(*dividend, *divisor));
    if (*divisor == 1 || *divisor == -1) return 0;
    if (*divisor < 0 && *divisor != kInt64Min)
      return truncMod(a, -*divisor);  // C++ % ignores the divisor's sign
  }
  if (rangeOf(b).lo >= 0) {
    if (rangeOf(a).lo >= 0) return floorMod(a, b);
    if (rangeOf(a).hi <= 0) return -floorMod(-a, b);
  }
  if (leadingCoefficient(a) < 0) return -truncMod(-a, b);  // the remainder takes the dividend's sign
  return makeOperator(Kind::kTruncMod, {a, b});
}

}  // namespace onyx
