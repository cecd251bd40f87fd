// Conv then Mul by a per-channel constant c: the Conv with weights W * c (per output channel) and bias b * c.
#include "passes/all_passes.h"
#include "passes/conv_folding.h"
#include "passes/rewrite_helpers.h"

namespace onyx::passes {

Expected<bool> ConvMulFusion::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* mul = graph.findNode(id);
    if (!isOp(mul, "Mul") || !context.inScope(*mul) || mul->inputCount() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      if (!constantOf(mul->input(size_t(1 - side)))) continue;  // only Conv (op) constant is a candidate
      auto found = convFeeding(context, mul->input(size_t(side)));
      if (auto* reason = std::get_if<std::string>(&found)) {
        if (!reason->empty()) context.skip(*mul, *reason);
        continue;
      }
      ConvWeights conv = std::get<ConvWeights>(std::move(found));
      auto c = perChannelConstant(mul->input(size_t(1 - side)), conv);
      if (!c) {
        context.skip(*mul, "the other operand is not a float32 constant per output channel");
        break;
      }
      int64_t inner = conv.perChannel();
      for (int64_t m = 0; m < conv.channels(); ++m) {
        float scale = (*c)[size_t(m)];
        for (int64_t k = 0; k < inner; ++k) conv.weights[size_t(m * inner + k)] *= scale;
        conv.bias[size_t(m)] *= scale;
      }
      writeConvWeights(context, conv);
      replaceResult(rw, mul->output(0), conv.conv->output(0), {mul});
      context.count("muls-folded-into-conv");
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace onyx::passes
