// Transpose(Transpose(x, p1), p2) is Transpose(x, p1∘p2), nothing when that is the identity. A 2-D
// Transpose feeding Gemm's A or B flips transA/transB instead (exact: Gemm reads the operand transposed).
#include <numeric>

#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

// The node's permutation; the default (reversed axes) needs the rank.
std::optional<std::vector<int64_t>> permutationOf(PatternContext& context, const Node& transpose) {
  if (auto perm = transpose.attrInts("perm")) return perm;
  auto shape = context.shapeOf(transpose.input(0));
  if (!shape) return std::nullopt;
  std::vector<int64_t> reversed(shape->size());
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return reversed;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != int64_t(i)) return false;
  return true;
}

PatternResult foldIntoGemm(PatternContext& context, Node& transpose) {
  auto perm = transpose.attrInts("perm");
  if (perm != std::vector<int64_t>{1, 0}) return PatternResult::noMatch();
  Node* gemm = soleConsumer(transpose.output(0));
  if (!isOp(gemm, "Gemm") || !context.inScope(gemm)) return PatternResult::noMatch();
  int index = transpose.output(0)->uses()[0].index;
  if (index > 1) return PatternResult::noMatch();
  const char* flag = index == 0 ? "transA" : "transB";
  Rewriter& rw = context.rewriter();
  rw.setAttribute(gemm, Attribute::ofInt(flag, gemm->attrInt(flag, 0) ? 0 : 1));
  rw.setInput(gemm, size_t(index), transpose.input(0));
  removeIfUnused(rw, {&transpose});
  return PatternResult::rewritten("transposes-folded-into-gemm");
}

}  // namespace

std::span<const std::string_view> TransposeCancellation::rootOps() const {
  static constexpr std::string_view kOps[] = {"Transpose"};
  return kOps;
}

PatternResult TransposeCancellation::matchAndRewrite(Node& second, PatternContext& context) {
  Node* first = producerOf(second.input(0), "Transpose");
  if (!first || !context.inScope(first)) return foldIntoGemm(context, second);
  auto p1 = permutationOf(context, *first);
  auto p2 = permutationOf(context, second);
  if (!p1 || !p2)
    return PatternResult::skipped("rank of '" + first->input(0)->name() + "' unknown and a perm is implicit");
  if (p1->size() != p2->size()) return PatternResult::skipped("the two permutations have different ranks");
  // y[i] = t[p2[i]] and t[j] = x[p1[j]], so y[i] = x[p1[p2[i]]].
  std::vector<int64_t> composed(p2->size());
  for (size_t i = 0; i < p2->size(); ++i) {
    int64_t j = (*p2)[i];
    if (j < 0 || j >= int64_t(p1->size())) return PatternResult::skipped("perm is out of range");
    composed[i] = (*p1)[size_t(j)];
  }
  Value* x = first->input(0);
  Rewriter& rw = context.rewriter();
  if (isIdentity(composed)) {
    if (auto reason = whyNotReplaceable(second, {x}))
      return PatternResult::skipped("the pair's result " + valueRef(second.output(0)) +
                                    " is a graph output: " + *reason);
    replaceNode(rw, &second, {x}, {first});
    return PatternResult::rewritten("transpose-pairs-removed");
  }
  rw.setInput(&second, 0, x);
  rw.setAttribute(&second, Attribute::ofInts("perm", composed));
  removeIfUnused(rw, {first});
  return PatternResult::rewritten("transposes-merged");
}

}  // namespace onyx::passes
