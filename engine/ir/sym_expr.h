#pragma once
// Integer expressions over named, non-negative symbols (tensor dims), kept in a canonical form so that
// structurally different but equal expressions compare equal: `N + M` == `M + N`, `2*N - N` == `N`.
//
// Canonical form: a sum of terms (non-zero coefficient times a product of atoms with powers) plus a constant,
// terms sorted by atoms. Atoms are symbols and the non-linear operations (floor/trunc div and mod, min, max)
// whose arguments are canonical themselves. Division by a positive constant d keeps the numerator's
// coefficients and constant in [0, d), divided through by their common factor with d, so that
// floor((4*N + 8)/4) == N + 2 and floor(floor(N/2)/3) == floor(N/6). ceil(a/d) is kept as the floor of
// (a + d - 1)/d. min/max are flattened, sorted, drop operands another operand provably dominates, and keep
// their smallest operand constant outside: min(N + 1, M + 1) == min(N, M) + 1.
//
// Undefined: division or modulo by a constant zero, and int64 overflow while building, give an absorbing
// "undefined" expression (0 * undefined is still undefined) that evaluate() reports as nullopt and that
// prints as `floor(1/0)`. A divisor that is only zero under some bindings stays symbolic, and evaluate()
// gives nullopt for those bindings.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onyx {

class SymExpr;
using SymBindings = std::map<std::string, int64_t, std::less<>>;
using SymSubstitution = std::map<std::string, SymExpr, std::less<>>;

class SymExpr {
 public:
  struct Node;  // private representation, defined in sym_expr.cpp

  SymExpr() : SymExpr(int64_t{0}) {}
  SymExpr(int64_t constant);  // NOLINT: implicit on purpose, `n + 1` must read naturally
  static SymExpr symbol(std::string_view name);

  bool isConstant() const { return !node_; }
  std::optional<int64_t> constantValue() const;
  bool isSymbol() const;  // exactly one bare symbol, e.g. `N`
  // Name of a bare symbol; empty otherwise.
  std::string symbolName() const;

  friend SymExpr operator+(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator-(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator*(const SymExpr& a, const SymExpr& b);
  SymExpr operator-() const;
  SymExpr& operator+=(const SymExpr& b) { return *this = *this + b; }
  SymExpr& operator-=(const SymExpr& b) { return *this = *this - b; }
  SymExpr& operator*=(const SymExpr& b) { return *this = *this * b; }

  // Rounding towards -inf (Python // and %), as ONNX Mod with fmod=0 and shape arithmetic use.
  static SymExpr floorDiv(const SymExpr& a, const SymExpr& b);
  static SymExpr ceilDiv(const SymExpr& a, const SymExpr& b);
  static SymExpr floorMod(const SymExpr& a, const SymExpr& b);
  // Rounding towards zero (C++ / and %), as ONNX integer Div and Mod with fmod=1 use.
  static SymExpr truncDiv(const SymExpr& a, const SymExpr& b);
  static SymExpr truncMod(const SymExpr& a, const SymExpr& b);
  static SymExpr min(const SymExpr& a, const SymExpr& b);
  static SymExpr max(const SymExpr& a, const SymExpr& b);

  // Value under bindings; nullopt when a symbol is unbound or a division by zero occurs.
  std::optional<int64_t> evaluate(const SymBindings& bindings) const;
  SymExpr substitute(const SymSubstitution& substitution) const;
  std::vector<std::string> symbols() const;  // sorted, unique

  // Facts that hold for every non-negative assignment of the symbols where both sides are defined; nullopt
  // when not proven. Reasoning is interval arithmetic over the canonical form.
  std::optional<bool> provablyEqual(const SymExpr& other) const;  // == is structural; this also tries a-b
  std::optional<bool> provablyLess(const SymExpr& other) const;
  std::optional<bool> provablyNonNegative() const;

  // Readable infix form, symbols before constants: `N*S`, `M + N`, `N - 1`, `N^2`, `floor((H - 1)/2) + 1`,
  // `ceil(N/4)`, `min(N, 8)`, `N % 4` (floorMod), `trunc(N/M)` (truncDiv), `fmod(N, M)` (truncMod).
  // A symbol name that is not [A-Za-z_][A-Za-z0-9_.:]* prints quoted in backticks: `batch-size`.
  std::string toString() const;
  // Parses what toString prints: integer literals, symbols of [A-Za-z_][A-Za-z0-9_.:]* or `quoted`, +, -, *,
  // `^` with a literal exponent, parentheses, a // b and a % b (floor, as in Python), floor(a/b), ceil(a/b),
  // trunc(a/b), fmod(a, b), min(a, b, ...), max(a, b, ...); nullopt on a syntax error. `-` and `/` are never
  // part of a bare name, so `N-1` is N minus 1; a bare `/` outside floor/ceil/trunc is an error.
  static std::optional<SymExpr> parse(std::string_view text);

  size_t hash() const;
  friend bool operator==(const SymExpr& a, const SymExpr& b);
  friend bool operator!=(const SymExpr& a, const SymExpr& b) { return !(a == b); }
  // A total order over canonical forms (for sorting and map keys), not numeric order.
  friend bool operator<(const SymExpr& a, const SymExpr& b);

 private:
  explicit SymExpr(std::shared_ptr<const Node> node);
  int64_t constant_ = 0;              // valid when node_ is null: constants never allocate
  std::shared_ptr<const Node> node_;  // immutable, shared canonical tree
};

}  // namespace onyx

template <>
struct std::hash<onyx::SymExpr> {
  size_t operator()(const onyx::SymExpr& e) const { return e.hash(); }
};
