#pragma once
// An Einsum equation split into its terms, shared by the shape function (math_shapes.cpp) and the kernel
// (einsum_cpu.cpp): "ij, jk -> ik" -> terms {"ij", "jk"}, output "ik". Spaces are dropped; without "->"
// the output is implicit (the ellipsis, then the labels used once, sorted). Each caller checks the terms
// against its operands and says what does not fit.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onyx {

struct EinsumEquation {
  std::string text;                   // the equation without spaces, for messages
  std::vector<std::string> terms;     // one per operand, as written (labels and "...")
  std::optional<std::string> output;  // the term after "->", when given
};

EinsumEquation splitEinsumEquation(std::string_view equation);

}  // namespace onyx
