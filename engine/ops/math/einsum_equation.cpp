#include "ops/math/einsum_equation.h"

namespace onyx {

EinsumEquation splitEinsumEquation(std::string_view equation) {
  EinsumEquation split;
  for (char c : equation)
    if (c != ' ') split.text += c;
  const size_t arrow = split.text.find("->");
  const std::string lhs = split.text.substr(0, arrow);
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    split.terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) split.output = split.text.substr(arrow + 2);
  return split;
}

}  // namespace onyx
