// SymExpr read against bindings: evaluate() to an integer, substitute() symbols by expressions (re-folding
// through the canonical algebra of sym_expr.cpp), and symbols() listing the names an expression uses.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ir/sym_expr.h"
#include "ir/sym_expr_internal.h"

namespace onyx {
namespace {

using sym_expr_detail::checkedAdd;
using sym_expr_detail::checkedMul;
using sym_expr_detail::Factor;
using sym_expr_detail::floorDivide;
using sym_expr_detail::floorRemainder;
using sym_expr_detail::Kind;
using sym_expr_detail::Node;
using sym_expr_detail::NodePtr;
using sym_expr_detail::power;
using sym_expr_detail::Term;
using sym_expr_detail::truncDivide;
using sym_expr_detail::truncRemainder;

std::optional<int64_t> checkedProduct(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? checkedMul(*a, *b) : std::nullopt;
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
      for (size_t i = 1; i < args.size(); ++i)
        folded = node->kind == Kind::kMin ? SymExpr::min(folded, args[i]) : SymExpr::max(folded, args[i]);
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

}  // namespace onyx
