#pragma once
// Declarative shape rules for ops Onyx has no shape function for (custom domains), read from a user file so
// inference continues past them. One rule per line; `#` starts a comment:
//
//   mydomain::MyOp: out0 = in0; out1 = [in0[0], in1[-1] * 2, 4] : int64
//
// - `outK = inJ` gives output K the type (element type and shape) of input J.
// - `outK = [d, ...]` gives output K that shape. Each dim `d` is an expression in the syntax of dim
//   expressions (integers, + - *, floor(a/b), ceil(a/b), a % b, min(a, b), max(a, b), graph symbols) where
//   `inJ[k]` is dim k of input J (negative k counts from the end).
// - An optional `: TYPE` after either form sets the element type (`float32`, `int64`, `bool`...); otherwise
//   output K takes input 0's element type.
// Outputs a rule does not mention stay unknown, with the rule named as their origin.
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/data_type.h"
#include "ir/sym_expr.h"
#include "util/expected.h"

namespace onyx {

class ShapeContext;

class ShapeRules {
 public:
  struct DimRef {
    size_t input = 0;
    int64_t dim = 0;
  };
  struct OutputRule {
    size_t output = 0;
    std::optional<size_t> copyInput;  // `outK = inJ`
    std::vector<SymExpr> dims;        // `outK = [...]`, over placeholder symbols for `inJ[k]`
    std::unordered_map<std::string, DimRef> references;  // placeholder symbol -> input dim
    std::optional<DataType> elemType;
  };
  struct Rule {
    std::string domain;
    std::string opType;
    std::vector<OutputRule> outputs;
    int line = 0;
  };

  // `source` names the text in errors (a file path); errors give the line.
  static Expected<ShapeRules> parse(std::string_view text, const std::string& source = "rules");
  static Expected<ShapeRules> load(const std::filesystem::path& path);

  const Rule* find(std::string_view domain, std::string_view opType) const;
  size_t size() const { return rules_.size(); }
  // Sets the node's outputs from its rule; an error when an input dim the rule reads does not exist.
  Expected<void> apply(ShapeContext& context) const;

 private:
  std::vector<Rule> rules_;
};

}  // namespace onyx
