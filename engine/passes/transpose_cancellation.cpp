// Transpose(Transpose(x, p1), p2) is Transpose(x, p1∘p2), nothing when that is the identity. A 2-D
// Transpose feeding Gemm's A or B flips transA/transB instead (exact: Gemm reads the operand transposed).
#include <numeric>

#include "passes/all_passes.h"
#include "passes/rewrite_helpers.h"

namespace onyx::passes {

namespace {

// The node's permutation; the default (reversed axes) needs the rank.
std::optional<std::vector<int64_t>> permutationOf(PassContext& context, const Node& transpose) {
  if (auto perm = transpose.attrInts("perm")) return perm;
  auto shape = shapeOf(context, transpose.input(0));
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

bool foldIntoGemm(PassContext& context, Node* transpose, const std::vector<int64_t>& perm) {
  if (perm != std::vector<int64_t>{1, 0}) return false;
  Node* gemm = soleConsumer(transpose->output(0));
  if (!isOp(gemm, "Gemm") || !context.inScope(*gemm)) return false;
  int index = transpose->output(0)->uses()[0].index;
  if (index > 1) return false;
  const char* flag = index == 0 ? "transA" : "transB";
  Rewriter& rw = context.rewriter();
  rw.setAttribute(gemm, Attribute::ofInt(flag, gemm->attrInt(flag, 0) ? 0 : 1));
  rw.setInput(gemm, size_t(index), transpose->input(0));
  removeIfUnused(rw, {transpose});
  context.count("transposes-folded-into-gemm");
  return true;
}

}  // namespace

Expected<bool> TransposeCancellation::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* second = graph.findNode(id);
    if (!isOp(second, "Transpose") || !context.inScope(*second)) continue;
    Node* first = producerOf(second->input(0), "Transpose");
    if (!first || !context.inScope(*first)) {
      auto perm = second->attrInts("perm");
      if (perm && foldIntoGemm(context, second, *perm)) changed = true;
      continue;
    }
    auto p1 = permutationOf(context, *first);
    auto p2 = permutationOf(context, *second);
    if (!p1 || !p2) {
      context.skip(*second, "rank of '" + first->input(0)->name() + "' unknown and a perm is implicit");
      continue;
    }
    if (p1->size() != p2->size()) {
      context.skip(*second, "the two permutations have different ranks");
      continue;
    }
    // y[i] = t[p2[i]] and t[j] = x[p1[j]], so y[i] = x[p1[p2[i]]].
    std::vector<int64_t> composed(p2->size());
    bool valid = true;
    for (size_t i = 0; i < p2->size(); ++i) {
      int64_t j = (*p2)[i];
      if (j < 0 || j >= int64_t(p1->size())) valid = false;
      composed[i] = valid ? (*p1)[size_t(j)] : 0;
    }
    if (!valid) {
      context.skip(*second, "perm is out of range");
      continue;
    }
    Value* x = first->input(0);
    if (isIdentity(composed)) {
      std::string blocker = replacementBlocker(second->output(0), x);
      if (!blocker.empty()) {
        context.skip(*second, blocker);
        continue;
      }
      replaceResult(rw, second->output(0), x, {second, first});
      context.count("transpose-pairs-removed");
    } else {
      rw.setInput(second, 0, x);
      rw.setAttribute(second, Attribute::ofInts("perm", composed));
      removeIfUnused(rw, {first});
      context.count("transposes-merged");
    }
    changed = true;
  }
  return changed;
}

}  // namespace onyx::passes
