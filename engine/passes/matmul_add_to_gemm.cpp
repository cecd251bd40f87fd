// MatMul(A, B) + C with 2-D A and B is Gemm(A, B, C) when C broadcasts to [M, N] (Gemm's C broadcasts one
// way). Higher ranks stay: Gemm is 2-D only, and reshaping around it would add nodes.
#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

bool gemmType(DataType type) {
  return type == DataType::Float || type == DataType::Double || type == DataType::Float16;
}

// C's dims aligned right against [M, N]: each 1 or equal.
bool broadcastsTo(const Shape& c, const Dim& m, const Dim& n) {
  if (c.size() > 2) return false;
  const Dim* target[2] = {&m, &n};
  for (size_t r = 0; r < c.size(); ++r) {
    const Dim& d = c[r];
    const Dim& t = *target[2 - c.size() + r];
    if (d.value() == std::optional<int64_t>(1)) continue;
    if (d.isUnknown() || t.isUnknown() || !(d.expr() == t.expr())) return false;
  }
  return true;
}

}  // namespace

std::span<const std::string_view> MatMulAddToGemm::rootOps() const {
  static constexpr std::string_view kOps[] = {"Add"};
  return kOps;
}

PatternResult MatMulAddToGemm::matchAndRewrite(Node& add, PatternContext& context) {
  return matchOperandProducedBy(add, "MatMul", [&](Node& matmul, Value* product, Value* c) {
    if (!context.inScope(&matmul)) return PatternResult::noMatch();
    if (soleConsumer(product) != &add)
      return PatternResult::skipped("the MatMul's output '" + product->name() + "' has other uses");
    auto a = context.shapeOf(matmul.input(0));
    auto b = context.shapeOf(matmul.input(1));
    auto cShape = context.shapeOf(c);
    if (!a || !b || !cShape) return PatternResult::skipped("rank of a MatMul input or of the bias unknown");
    if (a->size() != 2 || b->size() != 2)
      return PatternResult::skipped("the MatMul multiplies rank-" + std::to_string(a->size()) + " by rank-" +
                                    std::to_string(b->size()) + " inputs; Gemm is 2-D only");
    DataType type = context.elemTypeOf(product);
    if (!gemmType(type))
      return PatternResult::skipped("element type " + std::string(dataTypeName(type)) +
                                    " has no Gemm kernel here");
    if (!broadcastsTo(*cShape, (*a)[0], (*b)[1]))
      return PatternResult::skipped("the bias " + shapeToString(*cShape) +
                                    " does not broadcast to the product [" + (*a)[0].toString() + ", " +
                                    (*b)[1].toString() + "]");
    Node* gemm = context.addNode("Gemm", {matmul.input(0), matmul.input(1), c},
                                 matmul.name().empty() ? "Gemm" : matmul.name() + "_gemm",
                                 add.output(0)->name() + "_gemm", &add);
    // A new node's output is neither a graph input nor a graph output: always a valid replacement.
    replaceNode(context.rewriter(), &add, {gemm->output(0)}, {&matmul});
    return PatternResult::rewritten("matmul-adds-to-gemm");
  });
}

}  // namespace onyx::passes
