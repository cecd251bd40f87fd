#pragma once
// Private to engine/ir/sym_expr*.cpp: the node representation behind SymExpr and the helpers shared by the
// algebra (sym_expr.cpp), division and modulo (sym_expr_division.cpp), evaluation and substitution
// (sym_expr_eval.cpp) and the text form (sym_expr_text.cpp). Code elsewhere uses only ir/sym_expr.h.
// The small helpers are inline here because constant folding and evaluate() call them on every node.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/sym_expr.h"
#include "util/limits.h"

namespace onyx {
namespace sym_expr_detail {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

using onyx::checkedAdd;  // util/limits.h
using onyx::checkedMul;

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

// The four division flavours, shared by constant folding and evaluate(); nullopt on /0 and overflow.
inline std::optional<int64_t> truncDivide(int64_t a, int64_t b) {
  if (b == 0 || (a == kInt64Min && b == -1)) return std::nullopt;
  return a / b;
}

inline std::optional<int64_t> truncRemainder(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;  // INT64_MIN % -1 is undefined behaviour in C++
  return a % b;
}

inline std::optional<int64_t> floorDivide(int64_t a, int64_t b) {
  std::optional<int64_t> quotient = truncDivide(a, b);
  if (quotient && a % b != 0 && ((a < 0) != (b < 0))) --*quotient;
  return quotient;
}

inline std::optional<int64_t> floorRemainder(int64_t a, int64_t b) {
  std::optional<int64_t> remainder = truncRemainder(a, b);
  if (remainder && *remainder != 0 && ((*remainder < 0) != (b < 0))) *remainder += b;
  return remainder;
}

// Atoms come first, in printing order; a monomial is an atom or a product of atoms.
enum class Kind : uint8_t {
  kSymbol,
  kFloorDiv,
  kFloorMod,
  kTruncDiv,
  kTruncMod,
  kMin,
  kMax,
  kProduct,
  kSum,
  kUndefined
};

// Bounds of a value over every assignment of non-negative symbols where the expression is defined.
struct Interval {
  int64_t lo = kInt64Min;
  int64_t hi = kInt64Max;
};

}  // namespace sym_expr_detail

struct SymExpr::Node {
  struct Factor {
    std::shared_ptr<const Node> atom;
    int64_t power;
  };
  struct Term {
    int64_t coefficient;  // never 0
    std::shared_ptr<const Node> monomial;
  };

  sym_expr_detail::Kind kind = sym_expr_detail::Kind::kUndefined;
  size_t hash = 0;
  sym_expr_detail::Interval range;
  std::string name;             // kSymbol
  std::vector<SymExpr> args;    // operator atoms: {dividend, divisor}, or min/max operands in sorted order
  std::vector<Factor> factors;  // kProduct: sorted by atom, at least two or one with power > 1
  std::vector<Term> terms;      // kSum: sorted by monomial
  int64_t constant = 0;         // kSum

  bool isAtom() const { return kind < sym_expr_detail::Kind::kProduct; }

  // Nested in SymExpr, so these can reach its private members on behalf of the helpers.
  static SymExpr wrap(std::shared_ptr<const Node> node) { return SymExpr(std::move(node)); }
  static const std::shared_ptr<const Node>& of(const SymExpr& e) { return e.node_; }
  static int64_t constantOf(const SymExpr& e) { return e.constant_; }
};

namespace sym_expr_detail {

using Node = SymExpr::Node;
using NodePtr = std::shared_ptr<const Node>;
using Term = Node::Term;
using Factor = Node::Factor;

// A monomial viewed as a list of (atom, power), whether it is a bare atom or a product.
inline size_t factorCount(const Node& monomial) {
  return monomial.kind == Kind::kProduct ? monomial.factors.size() : 1;
}
inline const NodePtr& factorAtom(const NodePtr& monomial, size_t i) {
  return monomial->kind == Kind::kProduct ? monomial->factors[i].atom : monomial;
}
inline int64_t factorPower(const Node& monomial, size_t i) {
  return monomial.kind == Kind::kProduct ? monomial.factors[i].power : 1;
}

inline int64_t constantTerm(const SymExpr& e) {
  const NodePtr& node = Node::of(e);
  if (!node) return Node::constantOf(e);
  return node->kind == Kind::kSum ? node->constant : 0;
}

// The non-constant terms of e; an atom or a product is viewed as one term with coefficient 1 in `single`.
inline std::span<const Term> termsOf(const SymExpr& e, Term& single) {
  const NodePtr& node = Node::of(e);
  if (!node) return {};
  if (node->kind == Kind::kSum) return node->terms;
  single = {1, node};
  return {&single, 1};
}

inline int64_t leadingCoefficient(const SymExpr& e) {
  Term single;
  std::span<const Term> terms = termsOf(e, single);
  return terms.empty() ? constantTerm(e) : terms.front().coefficient;
}

// The atom of kind `kind` when e is exactly `atom + offset`.
inline const NodePtr* offsetAtom(const SymExpr& e, Kind kind, int64_t& offset) {
  const NodePtr& node = Node::of(e);
  offset = 0;
  if (node && node->kind == kind) return &node;
  if (node && node->kind == Kind::kSum && node->terms.size() == 1 && node->terms[0].coefficient == 1 &&
      node->terms[0].monomial->kind == kind) {
    offset = node->constant;
    return &node->terms[0].monomial;
  }
  return nullptr;
}

// The value range of e (a constant's is the constant itself).
inline Interval rangeOf(const SymExpr& e) {
  const NodePtr& node = Node::of(e);
  if (!node) return {Node::constantOf(e), Node::constantOf(e)};
  return node->range;
}

inline bool provablyNonZero(const SymExpr& e) {
  Interval range = rangeOf(e);
  return range.lo > 0 || range.hi < 0;
}

inline bool isUndefined(const SymExpr& e) {
  const NodePtr& node = Node::of(e);
  return node && node->kind == Kind::kUndefined;
}

// Division by a constant zero and int64 overflow produce this absorbing value; it evaluates to nullopt.
const SymExpr& undefinedExpr();

inline SymExpr fromOptional(std::optional<int64_t> value) {
  return value ? SymExpr(*value) : undefinedExpr();
}

// A sealed operator atom (floor/trunc div/mod, min, max) over args, taken as they are.
SymExpr makeOperator(Kind kind, std::vector<SymExpr> args);

// A sum being built: constant + terms sorted by monomial with non-zero coefficients.
struct Poly {
  int64_t constant = 0;
  std::vector<Term> terms;
  bool overflowed = false;
};

// The canonical SymExpr for a finished Poly: a constant, a bare monomial or a sealed sum.
SymExpr fromPoly(Poly&& poly);

// base^exponent by repeated squaring; exponent >= 0.
SymExpr raise(SymExpr base, int64_t exponent);

}  // namespace sym_expr_detail
}  // namespace onyx
