#include "ir/sym_expr.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "ir/sym_expr_internal.h"

namespace onyx {
namespace {

using sym_expr_detail::checkedAdd;
using sym_expr_detail::checkedMul;
using sym_expr_detail::constantTerm;
using sym_expr_detail::Factor;
using sym_expr_detail::factorAtom;
using sym_expr_detail::factorCount;
using sym_expr_detail::factorPower;
using sym_expr_detail::Interval;
using sym_expr_detail::Kind;
using sym_expr_detail::kInt64Max;
using sym_expr_detail::kInt64Min;
using sym_expr_detail::leadingCoefficient;
using sym_expr_detail::Node;
using sym_expr_detail::NodePtr;
using sym_expr_detail::offsetAtom;
using sym_expr_detail::Term;
using sym_expr_detail::termsOf;

// Exponentiation by repeated squaring, for anything with an associative multiplication.
template <typename T, typename Multiply>
T power(T base, int64_t exponent, T one, Multiply multiply) {
  T result = one;
  while (exponent > 0) {
    if (exponent & 1) result = multiply(result, base);
    exponent >>= 1;
    if (exponent > 0) base = multiply(base, base);
  }
  return result;
}

std::optional<int64_t> checkedProduct(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? checkedMul(*a, *b) : std::nullopt;
}

// Bounds may saturate at the int64 limits: every defined value is an int64, so the limits are valid bounds.
int64_t saturatingAdd(int64_t a, int64_t b) {
  std::optional<int64_t> sum = checkedAdd(a, b);
  return sum ? *sum : (b > 0 ? kInt64Max : kInt64Min);
}

int64_t saturatingMul(int64_t a, int64_t b) {
  std::optional<int64_t> product = checkedMul(a, b);
  return product ? *product : ((a < 0) != (b < 0) ? kInt64Min : kInt64Max);
}

// The four division flavours, shared by constant folding and evaluate(); nullopt on /0 and overflow.
std::optional<int64_t> truncDivide(int64_t a, int64_t b) {
  if (b == 0 || (a == kInt64Min && b == -1)) return std::nullopt;
  return a / b;
}

std::optional<int64_t> truncRemainder(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;  // INT64_MIN % -1 is undefined behaviour in C++
  return a % b;
}

std::optional<int64_t> floorDivide(int64_t a, int64_t b) {
  std::optional<int64_t> quotient = truncDivide(a, b);
  if (quotient && a % b != 0 && ((a < 0) != (b < 0))) --*quotient;
  return quotient;
}

std::optional<int64_t> floorRemainder(int64_t a, int64_t b) {
  std::optional<int64_t> remainder = truncRemainder(a, b);
  if (remainder && *remainder != 0 && ((*remainder < 0) != (b < 0))) *remainder += b;
  return remainder;
}

size_t mixHash(size_t seed, uint64_t value) {
  value *= 0x9e3779b97f4a7c15ULL;
  value ^= value >> 29;
  return seed ^ (static_cast<size_t>(value) + 0x9e3779b9U + (seed << 6) + (seed >> 2));
}

Interval add(Interval a, Interval b) {
  return {saturatingAdd(a.lo, b.lo), saturatingAdd(a.hi, b.hi)};
}

Interval multiply(Interval a, Interval b) {
  int64_t corners[] = {saturatingMul(a.lo, b.lo), saturatingMul(a.lo, b.hi), saturatingMul(a.hi, b.lo),
                       saturatingMul(a.hi, b.hi)};
  return {*std::min_element(std::begin(corners), std::end(corners)),
          *std::max_element(std::begin(corners), std::end(corners))};
}

template <typename T>
int compareValues(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compareNodes(const Node& a, const Node& b);

// Constants sort after everything else so that min(N, 8) reads naturally.
int compareExprs(const SymExpr& a, const SymExpr& b) {
  const NodePtr& nodeA = Node::of(a);
  const NodePtr& nodeB = Node::of(b);
  if (!nodeA && !nodeB) return compareValues(Node::constantOf(a), Node::constantOf(b));
  if (!nodeA || !nodeB) return nodeA ? -1 : 1;
  return compareNodes(*nodeA, *nodeB);
}

int compareMonomials(const NodePtr& a, const NodePtr& b) {
  if (a == b) return 0;
  size_t common = std::min(factorCount(*a), factorCount(*b));
  for (size_t i = 0; i < common; ++i) {
    if (int order = compareNodes(*factorAtom(a, i), *factorAtom(b, i))) return order;
    // Higher powers first: N^2 + N.
    if (int order = compareValues(factorPower(*b, i), factorPower(*a, i))) return order;
  }
  return compareValues(factorCount(*a), factorCount(*b));
}

int compareNodes(const Node& a, const Node& b) {
  if (&a == &b) return 0;
  if (a.kind != b.kind) return compareValues(a.kind, b.kind);
  switch (a.kind) {
    case Kind::kSymbol:
      return compareValues(a.name, b.name);
    case Kind::kProduct:
      for (size_t i = 0; i < std::min(a.factors.size(), b.factors.size()); ++i) {
        if (int order = compareNodes(*a.factors[i].atom, *b.factors[i].atom)) return order;
        if (int order = compareValues(b.factors[i].power, a.factors[i].power)) return order;
      }
      return compareValues(a.factors.size(), b.factors.size());
    case Kind::kSum:
      for (size_t i = 0; i < std::min(a.terms.size(), b.terms.size()); ++i) {
        if (int order = compareMonomials(a.terms[i].monomial, b.terms[i].monomial)) return order;
        if (int order = compareValues(a.terms[i].coefficient, b.terms[i].coefficient)) return order;
      }
      if (int order = compareValues(a.terms.size(), b.terms.size())) return order;
      return compareValues(a.constant, b.constant);
    case Kind::kUndefined:
      return 0;
    default:
      for (size_t i = 0; i < std::min(a.args.size(), b.args.size()); ++i) {
        if (int order = compareExprs(a.args[i], b.args[i])) return order;
      }
      return compareValues(a.args.size(), b.args.size());
  }
}

Interval rangeOf(const SymExpr& e) {
  const NodePtr& node = Node::of(e);
  if (!node) return {Node::constantOf(e), Node::constantOf(e)};
  return node->range;
}

Interval computeRange(const Node& node) {
  const bool hasArgs = node.args.size() == 2;
  const Interval dividend = hasArgs ? rangeOf(node.args[0]) : Interval{};
  const Interval divisor = hasArgs ? rangeOf(node.args[1]) : Interval{};
  const std::optional<int64_t> constantDivisor = hasArgs ? node.args[1].constantValue() : std::nullopt;
  const int64_t d = constantDivisor.value_or(0);  // > 0 whenever it is used below
  switch (node.kind) {
    case Kind::kSymbol:
      return {0, kInt64Max};
    case Kind::kFloorDiv:
    case Kind::kTruncDiv: {
      auto divide = node.kind == Kind::kFloorDiv ? floorDivide : truncDivide;
      if (d > 0) return {*divide(dividend.lo, d), *divide(dividend.hi, d)};
      // With a symbolic divisor >= 0 (0 leaves the value undefined): 0 <= x/b <= x for x >= 0.
      if (dividend.lo >= 0 && divisor.lo >= 0) return {0, dividend.hi};
      return {};
    }
    case Kind::kFloorMod:
      if (d > 0) return {0, dividend.lo >= 0 ? std::min(dividend.hi, d - 1) : d - 1};
      if (divisor.lo >= 0) return {0, std::max<int64_t>(divisor.hi - 1, 0)};
      return {};
    case Kind::kTruncMod:
      if (d > 0) return {dividend.lo >= 0 ? 0 : -(d - 1), dividend.hi <= 0 ? 0 : d - 1};
      if (dividend.lo >= 0) return {0, dividend.hi};
      return {};
    case Kind::kMin:
    case Kind::kMax: {
      Interval result = rangeOf(node.args[0]);
      for (const SymExpr& arg : node.args) {
        Interval r = rangeOf(arg);
        result = node.kind == Kind::kMin ? Interval{std::min(result.lo, r.lo), std::min(result.hi, r.hi)}
                                         : Interval{std::max(result.lo, r.lo), std::max(result.hi, r.hi)};
      }
      return result;
    }
    case Kind::kProduct: {
      Interval result{1, 1};
      for (const Factor& factor : node.factors)
        result = multiply(result, power(factor.atom->range, factor.power, Interval{1, 1}, multiply));
      return result;
    }
    case Kind::kSum: {
      Interval result{node.constant, node.constant};
      for (const Term& term : node.terms) {
        result = add(result, multiply(term.monomial->range, {term.coefficient, term.coefficient}));
      }
      return result;
    }
    case Kind::kUndefined:
      return {};
  }
  return {};
}

// Nodes are filled in place (they are large) and then sealed: hash and range computed, made immutable.
std::shared_ptr<Node> newNode(Kind kind) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  return node;
}

NodePtr seal(std::shared_ptr<Node> building) {
  Node& node = *building;
  size_t hash = mixHash(0, static_cast<uint64_t>(node.kind));
  switch (node.kind) {
    case Kind::kSymbol:
      hash = mixHash(hash, std::hash<std::string>{}(node.name));
      break;
    case Kind::kProduct:
      for (const Factor& factor : node.factors)
        hash = mixHash(mixHash(hash, factor.atom->hash), factor.power);
      break;
    case Kind::kSum:
      hash = mixHash(hash, static_cast<uint64_t>(node.constant));
      for (const Term& term : node.terms) {
        hash = mixHash(mixHash(hash, static_cast<uint64_t>(term.coefficient)), term.monomial->hash);
      }
      break;
    default:
      for (const SymExpr& arg : node.args) hash = mixHash(hash, arg.hash());
  }
  node.hash = hash;
  node.range = computeRange(node);
  return building;
}

// Division by a constant zero and int64 overflow produce this absorbing value; it evaluates to nullopt.
const SymExpr& undefinedExpr() {
  static const SymExpr undefined = Node::wrap(seal(newNode(Kind::kUndefined)));
  return undefined;
}

bool isUndefined(const SymExpr& e) {
  const NodePtr& node = Node::of(e);
  return node && node->kind == Kind::kUndefined;
}

SymExpr fromOptional(std::optional<int64_t> value) {
  return value ? SymExpr(*value) : undefinedExpr();
}

SymExpr makeOperator(Kind kind, std::vector<SymExpr> args) {
  std::shared_ptr<Node> node = newNode(kind);
  node->args = std::move(args);
  return Node::wrap(seal(std::move(node)));
}

// A sum being built: constant + terms sorted by monomial with non-zero coefficients.
struct Poly {
  int64_t constant = 0;
  std::vector<Term> terms;
  bool overflowed = false;
};

SymExpr fromPoly(Poly&& poly) {
  if (poly.overflowed) return undefinedExpr();
  if (poly.terms.empty()) return poly.constant;
  if (poly.constant == 0 && poly.terms.size() == 1 && poly.terms[0].coefficient == 1) {
    return Node::wrap(std::move(poly.terms[0].monomial));
  }
  std::shared_ptr<Node> node = newNode(Kind::kSum);
  node->constant = poly.constant;
  node->terms = std::move(poly.terms);
  return Node::wrap(seal(std::move(node)));
}

// a + sign*b, merging the sorted term lists.
SymExpr addScaled(const SymExpr& a, const SymExpr& b, int64_t sign) {
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  std::optional<int64_t> scaledConstant = checkedMul(constantTerm(b), sign);
  std::optional<int64_t> constant =
      scaledConstant ? checkedAdd(constantTerm(a), *scaledConstant) : std::nullopt;
  if (!constant) return undefinedExpr();
  Poly sum{*constant, {}, false};
  Term singleA, singleB;
  std::span<const Term> termsA = termsOf(a, singleA), termsB = termsOf(b, singleB);
  sum.terms.reserve(termsA.size() + termsB.size());
  size_t i = 0, j = 0;
  while (i < termsA.size() || j < termsB.size()) {
    int order = i == termsA.size()   ? 1
                : j == termsB.size() ? -1
                                     : compareMonomials(termsA[i].monomial, termsB[j].monomial);
    if (order < 0) {
      sum.terms.push_back(termsA[i++]);
      continue;
    }
    std::optional<int64_t> coefficient = checkedMul(termsB[j].coefficient, sign);
    if (coefficient && order == 0) coefficient = checkedAdd(termsA[i++].coefficient, *coefficient);
    if (!coefficient) return undefinedExpr();
    if (*coefficient != 0) sum.terms.push_back({*coefficient, termsB[j].monomial});
    ++j;
  }
  return fromPoly(std::move(sum));
}

SymExpr scale(const SymExpr& e, int64_t factor) {
  if (isUndefined(e)) return e;
  if (factor == 0) return 0;
  if (factor == 1) return e;
  Poly scaled;
  std::optional<int64_t> constant = checkedMul(constantTerm(e), factor);
  scaled.overflowed = !constant;
  scaled.constant = constant.value_or(0);
  Term single;
  for (const Term& term : termsOf(e, single)) {
    std::optional<int64_t> coefficient = checkedMul(term.coefficient, factor);
    if (!coefficient) return undefinedExpr();
    scaled.terms.push_back({*coefficient, term.monomial});
  }
  return fromPoly(std::move(scaled));
}

// Merges the factor lists of two monomials; nullptr when a power overflows.
NodePtr multiplyMonomials(const NodePtr& a, const NodePtr& b) {
  std::shared_ptr<Node> product = newNode(Kind::kProduct);
  std::vector<Factor>& factors = product->factors;
  factors.reserve(factorCount(*a) + factorCount(*b));
  size_t i = 0, j = 0, countA = factorCount(*a), countB = factorCount(*b);
  while (i < countA || j < countB) {
    int order = i == countA ? 1 : j == countB ? -1 : compareNodes(*factorAtom(a, i), *factorAtom(b, j));
    if (order < 0) {
      factors.push_back({factorAtom(a, i), factorPower(*a, i)}), ++i;
    } else if (order > 0) {
      factors.push_back({factorAtom(b, j), factorPower(*b, j)}), ++j;
    } else {
      std::optional<int64_t> power = checkedAdd(factorPower(*a, i), factorPower(*b, j));
      if (!power) return nullptr;
      factors.push_back({factorAtom(a, i), *power}), ++i, ++j;
    }
  }
  return seal(std::move(product));
}

SymExpr multiply(const SymExpr& a, const SymExpr& b) {
  if (a.isConstant() && b.isConstant())
    return fromOptional(checkedMul(Node::constantOf(a), Node::constantOf(b)));
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  if (a.isConstant()) return scale(b, Node::constantOf(a));
  if (b.isConstant()) return scale(a, Node::constantOf(b));
  Poly product;
  int64_t constantA = constantTerm(a), constantB = constantTerm(b);
  Term singleA, singleB;
  std::span<const Term> termsA = termsOf(a, singleA), termsB = termsOf(b, singleB);
  auto addTerm = [&](std::optional<int64_t> coefficient, NodePtr monomial) {
    if (!coefficient || !monomial) product.overflowed = true;
    if (!product.overflowed && *coefficient != 0)
      product.terms.push_back({*coefficient, std::move(monomial)});
  };
  for (const Term& x : termsA) {
    for (const Term& y : termsB)
      addTerm(checkedMul(x.coefficient, y.coefficient), multiplyMonomials(x.monomial, y.monomial));
    addTerm(checkedMul(x.coefficient, constantB), x.monomial);
  }
  for (const Term& y : termsB) addTerm(checkedMul(constantA, y.coefficient), y.monomial);
  std::optional<int64_t> constant = checkedMul(constantA, constantB);
  if (!constant || product.overflowed) return undefinedExpr();
  product.constant = *constant;
  std::sort(product.terms.begin(), product.terms.end(),
            [](const Term& x, const Term& y) { return compareMonomials(x.monomial, y.monomial) < 0; });
  // Combine equal monomials, which are now adjacent.
  size_t kept = 0;
  for (size_t i = 0; i < product.terms.size(); ++i) {
    if (kept > 0 && compareMonomials(product.terms[kept - 1].monomial, product.terms[i].monomial) == 0) {
      std::optional<int64_t> sum =
          checkedAdd(product.terms[kept - 1].coefficient, product.terms[i].coefficient);
      if (!sum) return undefinedExpr();
      product.terms[kept - 1].coefficient = *sum;
    } else {
      if (kept > 0 && product.terms[kept - 1].coefficient == 0) --kept;
      product.terms[kept++] = std::move(product.terms[i]);
    }
  }
  if (kept > 0 && product.terms[kept - 1].coefficient == 0) --kept;
  product.terms.resize(kept);
  return fromPoly(std::move(product));
}

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

bool provablyNonZero(const SymExpr& e) {
  Interval range = rangeOf(e);
  return range.lo > 0 || range.hi < 0;
}

// min/max over the flattened operands, without duplicates or operands another one provably dominates.
SymExpr minOrMax(Kind kind, const SymExpr& a, const SymExpr& b) {
  if (isUndefined(a) || isUndefined(b)) return undefinedExpr();
  const bool isMin = kind == Kind::kMin;
  std::vector<SymExpr> operands;
  for (const SymExpr* e : {&a, &b}) {
    int64_t offset = 0;
    if (const NodePtr* nested = offsetAtom(*e, kind, offset)) {
      // min(min(x, y) + c, z) == min(x + c, y + c, z)
      for (const SymExpr& arg : (*nested)->args) operands.push_back(arg + offset);
    } else {
      operands.push_back(*e);
    }
  }
  auto byOrder = [](const SymExpr& x, const SymExpr& y) { return compareExprs(x, y) < 0; };
  std::sort(operands.begin(), operands.end(), byOrder);
  operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
  std::vector<bool> dropped(operands.size(), false);
  for (size_t i = 0; i < operands.size(); ++i) {
    for (size_t j = 0; j < operands.size() && !dropped[i]; ++j) {
      if (i == j || dropped[j]) continue;
      Interval difference = rangeOf(operands[i] - operands[j]);
      dropped[i] = isMin ? difference.lo >= 0 : difference.hi <= 0;
    }
  }
  std::vector<SymExpr> kept;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!dropped[i]) kept.push_back(operands[i]);
  }
  if (kept.size() == 1) return kept.front();
  // Pull out the smallest constant, so that min(N + 1, M + 1) == min(N, M) + 1 and max(N - 1, 0) ==
  // max(N, 1) - 1. (The printer moves it back in where that reads better.)
  int64_t shift = kInt64Max;
  for (const SymExpr& e : kept) shift = std::min(shift, constantTerm(e));
  bool fits = shift != kInt64Min;
  for (const SymExpr& e : kept) fits = fits && checkedAdd(constantTerm(e), -shift).has_value();
  if (!fits) shift = 0;
  if (shift != 0) {
    for (SymExpr& e : kept) e -= shift;
    std::sort(kept.begin(), kept.end(), byOrder);
  }
  return makeOperator(kind, std::move(kept)) + shift;
}

std::optional<int64_t> evaluateExpr(const SymExpr& e, const SymBindings& bindings);

std::optional<int64_t> evaluateNode(const Node& node, const SymBindings& bindings) {
  std::optional<int64_t> result;
  switch (node.kind) {
    case Kind::kSymbol: {
      auto it = bindings.find(node.name);
      return it == bindings.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    case Kind::kFloorDiv:
    case Kind::kFloorMod:
    case Kind::kTruncDiv:
    case Kind::kTruncMod: {
      std::optional<int64_t> a = evaluateExpr(node.args[0], bindings);
      std::optional<int64_t> b = a ? evaluateExpr(node.args[1], bindings) : std::nullopt;
      if (!b) return std::nullopt;
      if (node.kind == Kind::kFloorDiv) return floorDivide(*a, *b);
      if (node.kind == Kind::kFloorMod) return floorRemainder(*a, *b);
      if (node.kind == Kind::kTruncDiv) return truncDivide(*a, *b);
      return truncRemainder(*a, *b);
    }
    case Kind::kMin:
    case Kind::kMax:
      for (const SymExpr& arg : node.args) {
        std::optional<int64_t> value = evaluateExpr(arg, bindings);
        if (!value) return std::nullopt;
        result = !result                   ? *value
                 : node.kind == Kind::kMin ? std::min(*result, *value)
                                           : std::max(*result, *value);
      }
      return result;
    case Kind::kProduct:
      result = 1;
      for (const Factor& factor : node.factors) {
        std::optional<int64_t> value = evaluateNode(*factor.atom, bindings);
        std::optional<int64_t> raised = power(value, factor.power, std::optional<int64_t>(1), checkedProduct);
        result = raised ? checkedMul(*result, *raised) : std::nullopt;
        if (!result) return std::nullopt;
      }
      return result;
    case Kind::kSum:
      result = node.constant;
      for (const Term& term : node.terms) {
        std::optional<int64_t> value = evaluateNode(*term.monomial, bindings);
        std::optional<int64_t> scaled = value ? checkedMul(*value, term.coefficient) : std::nullopt;
        result = scaled ? checkedAdd(*result, *scaled) : std::nullopt;
        if (!result) return std::nullopt;
      }
      return result;
    case Kind::kUndefined:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> evaluateExpr(const SymExpr& e, const SymBindings& bindings) {
  const NodePtr& node = Node::of(e);
  return node ? evaluateNode(*node, bindings) : std::optional<int64_t>(Node::constantOf(e));
}

SymExpr substituteExpr(const SymExpr& e, const SymSubstitution& substitution);

SymExpr substituteNode(const NodePtr& node, const SymSubstitution& substitution) {
  switch (node->kind) {
    case Kind::kSymbol: {
      auto it = substitution.find(node->name);
      return it == substitution.end() ? Node::wrap(node) : it->second;
    }
    case Kind::kProduct: {
      SymExpr product = 1;
      for (const Factor& factor : node->factors)
        product *= sym_expr_detail::raise(substituteNode(factor.atom, substitution), factor.power);
      return product;
    }
    case Kind::kSum: {
      SymExpr sum = node->constant;
      for (const Term& term : node->terms)
        sum += term.coefficient * substituteNode(term.monomial, substitution);
      return sum;
    }
    case Kind::kUndefined:
      return Node::wrap(node);
    default:
      break;
  }
  std::vector<SymExpr> args;
  bool changed = false;
  for (const SymExpr& arg : node->args) {
    args.push_back(substituteExpr(arg, substitution));
    changed = changed || args.back() != arg;
  }
  if (!changed) return Node::wrap(node);
  switch (node->kind) {
    case Kind::kFloorDiv:
      return SymExpr::floorDiv(args[0], args[1]);
    case Kind::kFloorMod:
      return SymExpr::floorMod(args[0], args[1]);
    case Kind::kTruncDiv:
      return SymExpr::truncDiv(args[0], args[1]);
    case Kind::kTruncMod:
      return SymExpr::truncMod(args[0], args[1]);
    default: {
      SymExpr folded = args[0];
      for (size_t i = 1; i < args.size(); ++i) folded = minOrMax(node->kind, folded, args[i]);
      return folded;
    }
  }
}

SymExpr substituteExpr(const SymExpr& e, const SymSubstitution& substitution) {
  const NodePtr& node = Node::of(e);
  return node ? substituteNode(node, substitution) : e;
}

void collectSymbols(const Node& node, std::vector<std::string>& names) {
  switch (node.kind) {
    case Kind::kSymbol:
      names.push_back(node.name);
      break;
    case Kind::kProduct:
      for (const Factor& factor : node.factors) collectSymbols(*factor.atom, names);
      break;
    case Kind::kSum:
      for (const Term& term : node.terms) collectSymbols(*term.monomial, names);
      break;
    default:
      for (const SymExpr& arg : node.args) {
        if (const NodePtr& child = Node::of(arg)) collectSymbols(*child, names);
      }
  }
}

}  // namespace

SymExpr sym_expr_detail::raise(SymExpr base, int64_t exponent) {
  return power(std::move(base), exponent, SymExpr(1),
               [](const SymExpr& a, const SymExpr& b) { return a * b; });
}

SymExpr::SymExpr(int64_t constant) : constant_(constant) {}
SymExpr::SymExpr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

SymExpr SymExpr::symbol(std::string_view name) {
  std::shared_ptr<Node> node = newNode(Kind::kSymbol);
  node->name = name;
  return SymExpr(seal(std::move(node)));
}

std::optional<int64_t> SymExpr::constantValue() const {
  return node_ ? std::nullopt : std::optional<int64_t>(constant_);
}
bool SymExpr::isSymbol() const {
  return node_ && node_->kind == Kind::kSymbol;
}
std::string SymExpr::symbolName() const {
  return isSymbol() ? node_->name : std::string();
}

SymExpr operator+(const SymExpr& a, const SymExpr& b) {
  if (a.isConstant() && b.isConstant()) return fromOptional(checkedAdd(a.constant_, b.constant_));
  return addScaled(a, b, 1);
}
SymExpr operator-(const SymExpr& a, const SymExpr& b) {
  if (a.isConstant() && b.isConstant()) {
    if (b.constant_ != kInt64Min) return fromOptional(checkedAdd(a.constant_, -b.constant_));
    return a.constant_ < 0 ? SymExpr(a.constant_ + kInt64Max + 1) : undefinedExpr();  // a + 2^63
  }
  return addScaled(a, b, -1);
}
SymExpr operator*(const SymExpr& a, const SymExpr& b) {
  return multiply(a, b);
}
SymExpr SymExpr::operator-() const {
  return scale(*this, -1);
}

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

SymExpr SymExpr::min(const SymExpr& a, const SymExpr& b) {
  return minOrMax(Kind::kMin, a, b);
}
SymExpr SymExpr::max(const SymExpr& a, const SymExpr& b) {
  return minOrMax(Kind::kMax, a, b);
}

std::optional<int64_t> SymExpr::evaluate(const SymBindings& bindings) const {
  return evaluateExpr(*this, bindings);
}

SymExpr SymExpr::substitute(const SymSubstitution& substitution) const {
  return substitution.empty() ? *this : substituteExpr(*this, substitution);
}

std::vector<std::string> SymExpr::symbols() const {
  std::vector<std::string> names;
  if (node_) collectSymbols(*node_, names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::optional<bool> SymExpr::provablyEqual(const SymExpr& other) const {
  if (isUndefined(*this) || isUndefined(other)) return std::nullopt;
  if (*this == other) return true;
  SymExpr difference = *this - other;
  if (std::optional<int64_t> constant = difference.constantValue()) return *constant == 0;
  if (provablyNonZero(difference)) return false;
  return std::nullopt;
}

std::optional<bool> SymExpr::provablyLess(const SymExpr& other) const {
  Interval gap = rangeOf(other - *this);
  if (gap.lo >= 1) return true;
  if (gap.hi <= 0) return false;
  return std::nullopt;
}

std::optional<bool> SymExpr::provablyNonNegative() const {
  Interval range = rangeOf(*this);
  if (range.lo >= 0) return true;
  if (range.hi < 0) return false;
  return std::nullopt;
}

size_t SymExpr::hash() const {
  return node_ ? node_->hash : mixHash(0x51ed270b, static_cast<uint64_t>(constant_));
}

bool operator==(const SymExpr& a, const SymExpr& b) {
  if (!a.node_ || !b.node_) return !a.node_ && !b.node_ && a.constant_ == b.constant_;
  if (a.node_ == b.node_) return true;
  return a.node_->hash == b.node_->hash && compareNodes(*a.node_, *b.node_) == 0;
}

bool operator<(const SymExpr& a, const SymExpr& b) {
  return compareExprs(a, b) < 0;
}

}  // namespace onyx
