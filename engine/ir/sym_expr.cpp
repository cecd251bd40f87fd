// SymExpr's canonical algebra: sealing nodes (hash, order, value range), polynomial sums and products,
// min/max, equality and the provably* queries. Division and modulo are in sym_expr_division.cpp,
// evaluation, substitution and symbol listing in sym_expr_eval.cpp, the text form in sym_expr_text.cpp.
#include "ir/sym_expr.h"

#include <algorithm>
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
using sym_expr_detail::floorDivide;
using sym_expr_detail::fromOptional;
using sym_expr_detail::fromPoly;
using sym_expr_detail::Interval;
using sym_expr_detail::isUndefined;
using sym_expr_detail::Kind;
using sym_expr_detail::kInt64Max;
using sym_expr_detail::kInt64Min;
using sym_expr_detail::makeOperator;
using sym_expr_detail::Node;
using sym_expr_detail::NodePtr;
using sym_expr_detail::offsetAtom;
using sym_expr_detail::Poly;
using sym_expr_detail::power;
using sym_expr_detail::provablyNonZero;
using sym_expr_detail::rangeOf;
using sym_expr_detail::Term;
using sym_expr_detail::termsOf;
using sym_expr_detail::truncDivide;
using sym_expr_detail::undefinedExpr;

// Bounds may saturate at the int64 limits: every defined value is an int64, so the limits are valid bounds.
int64_t saturatingAdd(int64_t a, int64_t b) {
  std::optional<int64_t> sum = checkedAdd(a, b);
  return sum ? *sum : (b > 0 ? kInt64Max : kInt64Min);
}

int64_t saturatingMul(int64_t a, int64_t b) {
  std::optional<int64_t> product = checkedMul(a, b);
  return product ? *product : ((a < 0) != (b < 0) ? kInt64Min : kInt64Max);
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

}  // namespace

const SymExpr& sym_expr_detail::undefinedExpr() {
  static const SymExpr undefined = Node::wrap(seal(newNode(Kind::kUndefined)));
  return undefined;
}

SymExpr sym_expr_detail::makeOperator(Kind kind, std::vector<SymExpr> args) {
  std::shared_ptr<Node> node = newNode(kind);
  node->args = std::move(args);
  return Node::wrap(seal(std::move(node)));
}

SymExpr sym_expr_detail::fromPoly(Poly&& poly) {
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

namespace {

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

SymExpr SymExpr::min(const SymExpr& a, const SymExpr& b) {
  return minOrMax(Kind::kMin, a, b);
}
SymExpr SymExpr::max(const SymExpr& a, const SymExpr& b) {
  return minOrMax(Kind::kMax, a, b);
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
