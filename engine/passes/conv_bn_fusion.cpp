// Conv then BatchNormalization in inference mode: y = (conv(x) - mean) * scale / sqrt(var + eps) + shift.
// With s = scale / sqrt(var + eps) per output channel, that is a Conv with weights W * s and bias
// (b - mean) * s + shift.
#include <cmath>

#include "passes/all_passes.h"
#include "passes/conv_folding.h"
#include "passes/rewrite_helpers.h"

namespace onyx::passes {

Expected<bool> ConvBnFusion::run(PassContext& context) {
  Graph& graph = context.model().graph();
  Rewriter& rw = context.rewriter();
  bool changed = false;
  for (NodeId id : nodeIdsOf(graph)) {
    Node* bn = graph.findNode(id);
    if (!isOp(bn, "BatchNormalization") || !context.inScope(*bn)) continue;
    auto found = convFeeding(context, bn->input(0));
    if (auto* reason = std::get_if<std::string>(&found)) {
      if (!reason->empty()) context.skip(*bn, *reason);
      continue;
    }
    ConvWeights conv = std::get<ConvWeights>(std::move(found));
    if (bn->attrInt("training_mode", 0) != 0) {
      context.skip(*bn, "training_mode=1 normalizes with batch statistics");
      continue;
    }
    bool extraOutputs = false;
    for (size_t i = 1; i < bn->outputCount(); ++i)
      extraOutputs = extraOutputs || (bn->output(i) && !bn->output(i)->uses().empty());
    if (extraOutputs) {
      context.skip(*bn, "its running mean/variance outputs are used");
      continue;
    }
    std::vector<std::vector<double>> params;
    for (size_t i = 1; i <= 4; ++i) {
      auto values = constantReals(bn->input(i));
      if (!values || int64_t(values->size()) != conv.channels()) break;
      params.push_back(std::move(*values));
    }
    if (params.size() != 4) {
      context.skip(*bn, "scale, bias, mean and variance must be constants of " +
                            std::to_string(conv.channels()) + " values (one per Conv output channel)");
      continue;
    }
    double epsilon = bn->attrFloat("epsilon", 1e-5f);
    int64_t inner = conv.perChannel();
    for (int64_t m = 0; m < conv.channels(); ++m) {
      size_t c = size_t(m);
      double s = params[0][c] / std::sqrt(params[3][c] + epsilon);
      for (int64_t k = 0; k < inner; ++k)
        conv.weights[size_t(m * inner + k)] = float(conv.weights[size_t(m * inner + k)] * s);
      conv.bias[c] = float((conv.bias[c] - params[2][c]) * s + params[1][c]);
    }
    writeConvWeights(context, conv);
    replaceResult(rw, bn->output(0), conv.conv->output(0), {bn});
    context.count("batchnorms-folded");
    changed = true;
  }
  return changed;
}

}  // namespace onyx::passes
