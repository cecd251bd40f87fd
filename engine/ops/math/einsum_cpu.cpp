// Einsum: a plain loop over every combination of the equation's labels, summing the products of the
// operands' elements into the output element the output labels select. "..." stands for the leading
// broadcast dimensions; without "->" the output is the ellipsis followed by the labels used once, sorted.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"
#include "ops/math/einsum_equation.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

// One operand's labels; ellipsis dimensions get codes from 256 up so they never clash with letters.
using Labels = std::vector<int>;
constexpr int kEllipsisBase = 256;

Expected<Labels> parseTerm(KernelContext& ctx, const std::string& term, int64_t rank, int64_t& ellipsisRank) {
  Labels labels;
  size_t dots = term.find("...");
  int64_t letters = 0;
  for (char c : term)
    if (std::isalpha(static_cast<unsigned char>(c))) ++letters;
  if (dots != std::string::npos) {
    int64_t own = rank - letters;
    if (own < 0) return ctx.error("term '" + term + "' has more labels than its operand's rank");
    ellipsisRank = std::max(ellipsisRank, own);
  } else if (letters != rank) {
    return ctx.error("term '" + term + "' has " + std::to_string(letters) + " labels for a rank-" +
                     std::to_string(rank) + " operand");
  }
  for (size_t i = 0; i < term.size(); ++i) {
    char c = term[i];
    if (c == '.') {
      if (i != dots) continue;
      int64_t own = rank - letters;
      // Right-aligned ellipsis dimensions: the last one of every operand shares a label.
      for (int64_t k = 0; k < own; ++k) labels.push_back(kEllipsisBase + int(64 - own + k));
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      labels.push_back(c);
    } else if (c != ' ') {
      return ctx.error(std::string("unexpected character '") + c + "' in einsum equation");
    }
  }
  return labels;
}

Expected<void> runEinsum(KernelContext& ctx) {
  const EinsumEquation split = splitEinsumEquation(ctx.attrString("equation", ""));
  const std::string& equation = split.text;
  const std::vector<std::string>& terms = split.terms;
  const size_t operands = ctx.inputCount();
  if (terms.size() != operands)
    return ctx.error("equation '" + equation + "' names " + std::to_string(terms.size()) +
                     " operands but the node has " + std::to_string(operands));
  std::vector<const TensorValue*> inputs;
  std::vector<Labels> operandLabels;
  std::map<int, int64_t> sizes;
  int64_t ellipsisRank = -1;
  for (size_t i = 0; i < operands; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    if ((*t)->dtype() != (*ctx.requireTensor(0))->dtype())
      return ctx.error("operands must share a type", i);
    inputs.push_back(*t);
    auto labels = parseTerm(ctx, terms[i], (*t)->rank(), ellipsisRank);
    if (!labels) return labels.error();
    for (size_t a = 0; a < labels->size(); ++a) {
      const int label = (*labels)[a];
      const int64_t size = (*t)->dim(int64_t(a));
      auto [it, inserted] = sizes.emplace(label, size);
      if (!inserted && it->second != size) {
        if (label >= kEllipsisBase && (it->second == 1 || size == 1)) {
          it->second = it->second == 1 ? size : it->second;  // numpy: 1 broadcasts, to 0 too
        } else {
          return ctx.error("label sizes disagree (" + std::to_string(it->second) + " vs " +
                               std::to_string(size) + ")",
                           i);
        }
      }
    }
    operandLabels.push_back(std::move(*labels));
  }
  Labels output;
  for (int64_t k = 0; k < std::max<int64_t>(ellipsisRank, 0); ++k)
    if (!split.output) output.push_back(kEllipsisBase + int(64 - ellipsisRank + k));
  if (!split.output) {
    std::map<int, int> uses;
    for (const Labels& labels : operandLabels)
      for (int label : labels) ++uses[label];
    for (auto [label, count] : uses)
      if (label < kEllipsisBase && count == 1) output.push_back(label);
  } else {
    const std::string& rhs = *split.output;
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs[i] == '.') {
        for (int64_t k = 0; k < std::max<int64_t>(ellipsisRank, 0); ++k)
          output.push_back(kEllipsisBase + int(64 - ellipsisRank + k));
        i += 2;
      } else if (!sizes.count(rhs[i])) {
        return ctx.error(std::string("output label '") + rhs[i] + "' appears in no operand");
      } else {
        output.push_back(rhs[i]);
      }
    }
  }
  // All labels: output labels first (outer loops), then the summed ones.
  Labels all = output;
  for (auto [label, size] : sizes)
    if (std::find(all.begin(), all.end(), label) == all.end()) all.push_back(label);
  std::map<int, size_t> position;
  for (size_t i = 0; i < all.size(); ++i) position[all[i]] = i;
  // Each operand's stride per label (0 for labels it lacks or broadcasts; repeated labels add up: diagonals).
  std::vector<std::vector<int64_t>> strides(operands, std::vector<int64_t>(all.size(), 0));
  for (size_t i = 0; i < operands; ++i) {
    int64_t stride = 1;
    for (int64_t a = inputs[i]->rank() - 1; a >= 0; --a) {
      const int label = operandLabels[i][size_t(a)];
      if (inputs[i]->dim(a) != 1 || sizes[label] == 1) strides[i][position[label]] += stride;
      stride *= inputs[i]->dim(a);
    }
  }
  Dims outDims;
  int64_t outCount = 1, inner = 1;
  // The loops run over every combination of labels: four operands of 65536 would be 2^64 of them.
  std::optional<int64_t> outLoop = 1, innerLoop = 1;
  for (int label : output) {
    outDims.push_back(sizes[label]);
    if (outLoop) outLoop = checkedMul(*outLoop, sizes[label]);
  }
  for (size_t i = output.size(); i < all.size(); ++i)
    if (innerLoop) innerLoop = checkedMul(*innerLoop, sizes[all[i]]);
  if (!outLoop || !innerLoop || !checkedMul(*outLoop, *innerLoop))
    return ctx.error("has labels whose sizes multiply past 2^63 combinations; use smaller operands", 0);
  outCount = *outLoop, inner = *innerLoop;
  std::vector<int64_t> extent(all.size());
  for (size_t a = 0; a < all.size(); ++a) extent[a] = sizes[all[a]];

  auto y = ctx.allocateOutput(0, inputs[0]->dtype(), outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>(inputs[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    T* out = (*y)->template data<T>();
    std::vector<int64_t> index(all.size());
    for (int64_t o = 0; o < outCount; ++o) {
      C sum = 0;
      for (int64_t s = 0; s < inner; ++s) {
        // Decode (o, s) into one index per label.
        int64_t rest = s;
        for (size_t a = all.size(); a-- > output.size();) index[a] = rest % extent[a], rest /= extent[a];
        rest = o;
        for (size_t a = output.size(); a-- > 0;) index[a] = rest % extent[a], rest /= extent[a];
        C product = 1;
        for (size_t i = 0; i < operands; ++i) {
          int64_t offset = 0;
          for (size_t a = 0; a < all.size(); ++a) offset += strides[i][a] * index[a];
          product = wrappingMul(product, C(inputs[i]->template data<T>()[offset]));  // integers wrap
        }
        sum = wrappingAdd(sum, product);
      }
      out[o] = fromCompute<T>(sum);
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerEinsumCpuKernels(KernelRegistry& registry) {
  registry.add(kernel("Einsum", runEinsum, 12));
}

}  // namespace onyx::exec
