// Conv then BatchNormalization in inference mode: y = (conv(x) - mean) * scale / sqrt(var + eps) + shift.
// With s = scale / sqrt(var + eps) per output channel, that is a Conv with weights W * s and bias
// (b - mean) * s + shift.
#include <cmath>

#include "passes/all_passes.h"
#include "passes/conv_folding.h"

namespace onyx::passes {

std::span<const std::string_view> ConvBnFusion::rootOps() const {
  static constexpr std::string_view kOps[] = {"BatchNormalization"};
  return kOps;
}

PatternResult ConvBnFusion::matchAndRewrite(Node& bn, PatternContext& context) {
  Node* convNode = producerOf(bn.input(0), "Conv");
  if (!convNode) return PatternResult::noMatch();
  auto found = convWeightsOf(context, *convNode, bn.input(0));
  if (auto* skip = std::get_if<PatternResult>(&found)) return *skip;
  ConvWeights conv = std::get<ConvWeights>(std::move(found));
  if (bn.attrInt("training_mode", 0) != 0)
    return PatternResult::skipped("training_mode=1 normalizes with batch statistics");
  for (size_t i = 1; i < bn.outputCount(); ++i)
    if (bn.output(i) && !bn.output(i)->uses().empty())
      return PatternResult::skipped("its running mean/variance outputs are used");
  std::vector<std::vector<double>> params;
  for (size_t i = 1; i <= 4; ++i) {
    auto values = constantReals(bn.input(i));
    if (!values || int64_t(values->size()) != conv.channels()) break;
    params.push_back(std::move(*values));
  }
  if (params.size() != 4)
    return PatternResult::skipped("scale, bias, mean and variance must be constants of " +
                                  std::to_string(conv.channels()) + " values (one per Conv output channel)");
  if (auto reason = whyNotReplaceable(bn, {conv.conv->output(0)})) return PatternResult::skipped(*reason);
  double epsilon = bn.attrFloat("epsilon", 1e-5f);
  int64_t inner = conv.perChannel();
  for (int64_t m = 0; m < conv.channels(); ++m) {
    size_t c = size_t(m);
    double s = params[0][c] / std::sqrt(params[3][c] + epsilon);
    for (int64_t k = 0; k < inner; ++k)
      conv.weights[size_t(m * inner + k)] = float(conv.weights[size_t(m * inner + k)] * s);
    conv.bias[c] = float((conv.bias[c] - params[2][c]) * s + params[1][c]);
  }
  writeConvWeights(context, conv);
  replaceNode(context.rewriter(), &bn, {conv.conv->output(0)});
  return PatternResult::rewritten("batchnorms-folded");
}

}  // namespace onyx::passes
