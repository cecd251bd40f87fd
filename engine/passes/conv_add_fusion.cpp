// Conv then Add of a per-channel constant c: the Conv with bias b + c.
#include "passes/all_passes.h"
#include "passes/conv_folding.h"
#include "passes/rewrite_helpers.h"

namespace onyx::passes {

Expected<bool> ConvAddFusion::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* add = graph.findNode(id);
    if (!isOp(add, "Add") || !context.inScope(*add) || add->inputCount() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      if (!constantOf(add->input(size_t(1 - side)))) continue;  // only Conv (op) constant is a candidate
      auto found = convFeeding(context, add->input(size_t(side)));
      if (auto* reason = std::get_if<std::string>(&found)) {
        if (!reason->empty()) context.skip(*add, *reason);
        continue;
      }
      ConvWeights conv = std::get<ConvWeights>(std::move(found));
      auto c = perChannelConstant(add->input(size_t(1 - side)), conv);
      if (!c) {
        context.skip(*add, "the other operand is not a float32 constant per output channel");
        break;
      }
      for (size_t m = 0; m < c->size(); ++m) conv.bias[m] += (*c)[m];
      writeConvWeights(context, conv, /*weightsChanged=*/false);
      replaceResult(rw, add->output(0), conv.conv->output(0), {add});
      context.count("adds-folded-into-conv-bias");
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace onyx::passes
