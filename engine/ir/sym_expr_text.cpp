// The text form of SymExpr: toString() and parse(), which reads back everything toString() prints.
#include <algorithm>
#include <string>
#include <vector>

#include "ir/sym_expr.h"
#include "ir/sym_expr_internal.h"

namespace onyx {
namespace {

using sym_expr_detail::checkedAdd;
using sym_expr_detail::checkedMul;
using sym_expr_detail::constantTerm;
using sym_expr_detail::factorCount;
using sym_expr_detail::factorPower;
using sym_expr_detail::Kind;
using sym_expr_detail::kInt64Min;
using sym_expr_detail::leadingCoefficient;
using sym_expr_detail::Node;
using sym_expr_detail::NodePtr;
using sym_expr_detail::offsetAtom;
using sym_expr_detail::raise;
using sym_expr_detail::Term;
using sym_expr_detail::termsOf;

bool isNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool isNameChar(char c) {
  return isNameStart(c) || (c >= '0' && c <= '9') || c == '.' || c == ':';
}

// Names that the parser would not read back as one symbol are quoted: `batch-size`.
void printName(const std::string& name, std::string& out) {
  if (!name.empty() && isNameStart(name[0]) && std::all_of(name.begin(), name.end(), isNameChar)) {
    out += name;
    return;
  }
  out += '`';
  for (char c : name) {
    if (c == '`' || c == '\\') out += '\\';
    out += c;
  }
  out += '`';
}

void printExpr(const SymExpr& e, std::string& out);

// Names, calls and non-negative literals can stand anywhere without parentheses.
void printOperand(const SymExpr& e, std::string& out) {
  const NodePtr& node = Node::of(e);
  bool bare = node ? (node->isAtom() && node->kind != Kind::kFloorMod) || node->kind == Kind::kUndefined
                   : Node::constantOf(e) >= 0;
  if (!bare) out += '(';
  printExpr(e, out);
  if (!bare) out += ')';
}

void printFraction(const char* function, const SymExpr& numerator, const SymExpr& divisor, std::string& out) {
  const NodePtr& node = Node::of(numerator);
  bool wrap = node && ((node->kind == Kind::kSum && (node->terms.size() > 1 || node->constant != 0)) ||
                       node->kind == Kind::kFloorMod);
  out += function;
  out += wrap ? "((" : "(";
  printExpr(numerator, out);
  out += wrap ? ")/" : "/";
  printOperand(divisor, out);
  out += ')';
}

void printAtom(const Node& atom, std::string& out) {
  switch (atom.kind) {
    case Kind::kSymbol:
      return printName(atom.name, out);
    case Kind::kFloorDiv: {
      // ceilDiv(x, d) is kept as floor((x + d - 1)/d); print it back as ceil(x/d).
      std::optional<int64_t> d = atom.args[1].constantValue();
      if (d && *d >= 2 && constantTerm(atom.args[0]) == *d - 1) {
        return printFraction("ceil", atom.args[0] - (*d - 1), atom.args[1], out);
      }
      return printFraction("floor", atom.args[0], atom.args[1], out);
    }
    case Kind::kTruncDiv:
      return printFraction("trunc", atom.args[0], atom.args[1], out);
    case Kind::kFloorMod:
      printOperand(atom.args[0], out);
      out += " % ";
      return printOperand(atom.args[1], out);
    case Kind::kTruncMod:
    case Kind::kMin:
    case Kind::kMax:
      out += atom.kind == Kind::kTruncMod ? "fmod(" : atom.kind == Kind::kMin ? "min(" : "max(";
      for (size_t i = 0; i < atom.args.size(); ++i) {
        if (i > 0) out += ", ";
        printExpr(atom.args[i], out);
      }
      out += ')';
      return;
    case Kind::kUndefined:
      out += "floor(1/0)";
      return;
    default:
      return;
  }
}

// ceilDiv by a symbolic b is kept as -floor(-x/b); such a term prints back as ceil(x/b).
bool printsAsCeil(int64_t coefficient, const Node* monomial) {
  return monomial && monomial->kind == Kind::kFloorDiv && coefficient < 0 && coefficient != kInt64Min &&
         !monomial->args[1].isConstant() && leadingCoefficient(monomial->args[0]) < 0;
}

// One term of a sum; `monomial` is null for the constant term.
void printTerm(int64_t coefficient, const Node* monomial, bool first, std::string& out) {
  bool asCeil = printsAsCeil(coefficient, monomial);
  if (asCeil) coefficient = -coefficient;
  int64_t magnitude = coefficient;
  if (coefficient == kInt64Min) {
    out += first ? "-9223372036854775808" : " + -9223372036854775808";  // has no positive counterpart
  } else {
    if (coefficient < 0) out += first ? "-" : " - ";
    if (coefficient >= 0 && !first) out += " + ";
    magnitude = coefficient < 0 ? -coefficient : coefficient;
    if (!monomial || magnitude != 1) out += std::to_string(magnitude);
  }
  if (!monomial) return;
  if (magnitude != 1) out += '*';
  if (asCeil) return printFraction("ceil", -monomial->args[0], monomial->args[1], out);
  size_t count = factorCount(*monomial);
  bool alone = magnitude == 1 && count == 1 && factorPower(*monomial, 0) == 1 && !(first && coefficient < 0);
  for (size_t i = 0; i < count; ++i) {
    const Node& atom = monomial->kind == Kind::kProduct ? *monomial->factors[i].atom : *monomial;
    if (i > 0) out += '*';
    bool parenthesize = atom.kind == Kind::kFloorMod && !alone;  // `%` binds like `*`
    if (parenthesize) out += '(';
    printAtom(atom, out);
    if (parenthesize) out += ')';
    if (factorPower(*monomial, i) > 1) out += '^' + std::to_string(factorPower(*monomial, i));
  }
}

// min/max keep their smallest operand constant outside: max(N - 1, 0) is max(N, 1) - 1. Print the equal form
// with the fewest non-zero constants, preferring the smallest outer one: max(N - 1, 0), min(M, N) + 1.
bool printMinMaxWithOffset(const SymExpr& e, std::string& out) {
  int64_t offset = 0;
  const NodePtr* atom = offsetAtom(e, Kind::kMin, offset);
  if (!atom) atom = offsetAtom(e, Kind::kMax, offset);
  if (!atom || offset == 0) return false;
  std::vector<int64_t> constants;  // of the operands with the offset moved in
  for (const SymExpr& arg : (*atom)->args) {
    std::optional<int64_t> moved = checkedAdd(constantTerm(arg), offset);
    if (!moved) return false;
    constants.push_back(*moved);
  }
  auto cost = [&](int64_t outer) {
    return (outer != 0) +
           std::count_if(constants.begin(), constants.end(), [&](int64_t c) { return c != outer; });
  };
  auto magnitude = [](int64_t value) { return value < 0 ? ~value : value; };  // orders c before -c
  int64_t outer = 0;
  for (int64_t candidate : constants) {
    if (cost(candidate) < cost(outer) ||
        (cost(candidate) == cost(outer) && magnitude(candidate) < magnitude(outer))) {
      outer = candidate;
    }
  }
  std::optional<int64_t> inner = checkedAdd(offset, outer == kInt64Min ? 0 : -outer);
  if (!inner || outer == kInt64Min) return false;
  out += (*atom)->kind == Kind::kMin ? "min(" : "max(";
  for (size_t i = 0; i < (*atom)->args.size(); ++i) {
    if (i > 0) out += ", ";
    printExpr((*atom)->args[i] + *inner, out);
  }
  out += ')';
  if (outer != 0) printTerm(outer, nullptr, false, out);
  return true;
}

void printExpr(const SymExpr& e, std::string& out) {
  if (e.isConstant()) {
    out += std::to_string(Node::constantOf(e));
    return;
  }
  if (printMinMaxWithOffset(e, out)) return;
  // Terms that print with a plus sign come first, so N - M rather than -M + N; the constant comes last.
  Term single;
  std::span<const Term> terms = termsOf(e, single);
  bool first = true;
  for (bool positive : {true, false}) {
    for (const Term& term : terms) {
      if ((term.coefficient > 0 || printsAsCeil(term.coefficient, term.monomial.get())) != positive) continue;
      printTerm(term.coefficient, term.monomial.get(), first, out);
      first = false;
    }
  }
  if (constantTerm(e) != 0) printTerm(constantTerm(e), nullptr, false, out);
}

// Recursive descent, with Python's precedence and floor semantics for `//` and `%`:
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '//' | '%') unary)*
//   unary   := '-' unary | power
//   power   := primary ('^' literal)?
//   primary := literal | name | `quoted name` | '(' sum ')' | floor(sum/sum) | ceil(sum/sum) | trunc(sum/sum)
//            | fmod(sum, sum) | min(sum, sum, ...) | max(sum, sum, ...)
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::optional<SymExpr> parseAll() {
    std::optional<SymExpr> e = parseSum();
    if (!e || peek() != '\0') return std::nullopt;
    return e;
  }

 private:
  // Bounds recursion on hostile input such as ten thousand '('.
  static constexpr int kMaxDepth = 256;
  struct DepthGuard {
    explicit DepthGuard(int& counter) : depth(++counter) {}
    ~DepthGuard() { --depth; }
    int& depth;
  };

  char peek() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool consume(std::string_view token) {
    peek();
    if (text_.substr(pos_, token.size()) != token) return false;
    if (token == "/" && text_.substr(pos_, 2) == "//") return false;  // `/` inside floor(...) is not `//`
    pos_ += token.size();
    return true;
  }

  std::optional<SymExpr> parseSum() {
    std::optional<SymExpr> sum = parseProduct();
    while (sum) {
      bool plus = consume("+");
      if (!plus && !consume("-")) break;
      std::optional<SymExpr> term = parseProduct();
      if (!term) return std::nullopt;
      sum = plus ? *sum + *term : *sum - *term;
    }
    return sum;
  }

  std::optional<SymExpr> parseProduct() {
    std::optional<SymExpr> product = parseUnary();
    while (product) {
      char op = consume("*") ? '*' : consume("//") ? '/' : consume("%") ? '%' : '\0';
      if (op == '\0') break;
      std::optional<SymExpr> factor = parseUnary();
      if (!factor) return std::nullopt;
      product = op == '*'   ? *product * *factor
                : op == '/' ? SymExpr::floorDiv(*product, *factor)
                            : SymExpr::floorMod(*product, *factor);
    }
    return product;
  }

  std::optional<SymExpr> parseUnary() {
    DepthGuard guard(depth_);
    if (depth_ > kMaxDepth) return std::nullopt;
    if (!consume("-")) return parsePower();
    // `-9223372036854775808` must read as one literal: its magnitude alone overflows.
    size_t start = pos_;
    if (std::optional<int64_t> literal = parseLiteral(/*negative=*/true); literal && peek() != '^')
      return literal;
    pos_ = start;
    std::optional<SymExpr> operand = parseUnary();
    return operand ? std::optional<SymExpr>(-*operand) : std::nullopt;
  }

  std::optional<SymExpr> parsePower() {
    std::optional<SymExpr> base = parsePrimary();
    if (!base || !consume("^")) return base;
    std::optional<int64_t> exponent = parseLiteral(/*negative=*/false);
    if (!exponent) return std::nullopt;
    // Expanding a sum to a large power is a hang, not an answer; monomials stay cheap at any power.
    const NodePtr& node = Node::of(*base);
    bool monomial = node && (node->isAtom() || node->kind == Kind::kProduct);
    if (!monomial && *exponent > 64) return std::nullopt;
    return raise(*base, *exponent);
  }

  std::optional<int64_t> parseLiteral(bool negative) {
    if (peek() < '0' || peek() > '9') return std::nullopt;
    int64_t value = 0;  // accumulated towards the sign so that INT64_MIN fits
    for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; ++pos_) {
      int64_t digit = text_[pos_] - '0';
      std::optional<int64_t> shifted = checkedMul(value, 10);
      std::optional<int64_t> next = shifted ? checkedAdd(*shifted, negative ? -digit : digit) : std::nullopt;
      if (!next) return std::nullopt;
      value = *next;
    }
    if (pos_ < text_.size() && isNameChar(text_[pos_])) return std::nullopt;  // `2N`
    return value;
  }

  std::optional<SymExpr> parsePrimary() {
    DepthGuard guard(depth_);
    if (depth_ > kMaxDepth) return std::nullopt;
    char next = peek();
    if (next >= '0' && next <= '9') {
      std::optional<int64_t> literal = parseLiteral(/*negative=*/false);
      return literal ? std::optional<SymExpr>(*literal) : std::nullopt;
    }
    if (consume("(")) {
      std::optional<SymExpr> inner = parseSum();
      return inner && consume(")") ? inner : std::nullopt;
    }
    if (next == '`') return parseQuotedName();
    if (!isNameStart(next)) return std::nullopt;
    size_t start = pos_;
    while (pos_ < text_.size() && isNameChar(text_[pos_])) ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    if (!consume("(")) return SymExpr::symbol(name);
    return parseCall(name);
  }

  std::optional<SymExpr> parseQuotedName() {
    std::string name;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '`') return ++pos_, SymExpr::symbol(name);
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      name += text_[pos_];
    }
    return std::nullopt;  // unterminated
  }

  // After `name(`.
  std::optional<SymExpr> parseCall(std::string_view name) {
    if (name == "floor" || name == "ceil" || name == "trunc") {
      std::optional<SymExpr> numerator = parseSum();
      std::optional<SymExpr> divisor = numerator && consume("/") ? parseSum() : std::nullopt;
      if (!divisor || !consume(")")) return std::nullopt;
      if (name == "floor") return SymExpr::floorDiv(*numerator, *divisor);
      if (name == "ceil") return SymExpr::ceilDiv(*numerator, *divisor);
      return SymExpr::truncDiv(*numerator, *divisor);
    }
    if (name != "fmod" && name != "min" && name != "max") return std::nullopt;
    std::vector<SymExpr> args;
    do {
      std::optional<SymExpr> arg = parseSum();
      if (!arg) return std::nullopt;
      args.push_back(*arg);
    } while (consume(","));
    if (!consume(")") || args.size() < 2 || (name == "fmod" && args.size() != 2)) return std::nullopt;
    if (name == "fmod") return SymExpr::truncMod(args[0], args[1]);
    SymExpr folded = args[0];
    for (size_t i = 1; i < args.size(); ++i)
      folded = name == "min" ? SymExpr::min(folded, args[i]) : SymExpr::max(folded, args[i]);
    return folded;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string SymExpr::toString() const {
  std::string out;
  printExpr(*this, out);
  return out;
}

std::optional<SymExpr> SymExpr::parse(std::string_view text) {
  return Parser(text).parseAll();
}

}  // namespace onyx
