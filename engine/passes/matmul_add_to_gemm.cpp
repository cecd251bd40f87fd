// MatMul(A, B) + C with 2-D A and B is Gemm(A, B, C) when C broadcasts to [M, N] (Gemm's C broadcasts one
// way). Higher ranks stay: Gemm is 2-D only, and reshaping around it would add nodes.
#include "passes/all_passes.h"
#include "passes/rewrite_helpers.h"

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

Expected<bool> MatMulAddToGemm::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* add = graph.findNode(id);
    if (!isOp(add, "Add") || !context.inScope(*add) || add->inputCount() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      Node* matmul = producerOf(add->input(size_t(side)), "MatMul");
      if (!matmul || !context.inScope(*matmul)) continue;
      Value* c = add->input(size_t(1 - side));
      if (soleConsumer(matmul->output(0)) != add) {
        context.skip(*add, "the MatMul's output '" + matmul->output(0)->name() + "' has other uses");
        break;
      }
      auto a = shapeOf(context, matmul->input(0));
      auto b = shapeOf(context, matmul->input(1));
      auto cShape = shapeOf(context, c);
      if (!a || !b || !cShape) {
        context.skip(*add, "rank of a MatMul input or of the bias unknown");
        break;
      }
      if (a->size() != 2 || b->size() != 2) {
        context.skip(*add, "the MatMul multiplies rank-" + std::to_string(a->size()) + " by rank-" +
                               std::to_string(b->size()) + " inputs; Gemm is 2-D only");
        break;
      }
      DataType type = elemTypeOf(context, matmul->output(0));
      if (!gemmType(type)) {
        context.skip(*add, "element type " + std::string(dataTypeName(type)) + " has no Gemm kernel here");
        break;
      }
      if (!broadcastsTo(*cShape, (*a)[0], (*b)[1])) {
        context.skip(*add, "the bias " + shapeToString(*cShape) + " does not broadcast to the product [" +
                               (*a)[0].toString() + ", " + (*b)[1].toString() + "]");
        break;
      }
      std::string name = freshNodeName(graph, matmul->name().empty() ? "Gemm" : matmul->name() + "_gemm");
      Node* gemm = rw.addNode(graph,
                              {.opType = "Gemm",
                               .name = name,
                               .inputs = {matmul->input(0), matmul->input(1), c},
                               .outputNames = {freshName(graph, add->output(0)->name() + "_gemm")}},
                              add);
      replaceResult(rw, add->output(0), gemm->output(0), {add, matmul});
      context.count("matmul-adds-to-gemm");
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace onyx::passes
