// Conv then Add of a per-channel constant c: the Conv with bias b + c.
#include "passes/all_passes.h"
#include "passes/conv_folding.h"

namespace onyx::passes {

std::span<const std::string_view> ConvAddFusion::rootOps() const {
  static constexpr std::string_view kOps[] = {"Add"};
  return kOps;
}

PatternResult ConvAddFusion::matchAndRewrite(Node& add, PatternContext& context) {
  auto addToBias = [](ConvWeights& conv, const std::vector<float>& c) {
    for (size_t m = 0; m < c.size(); ++m) conv.bias[m] += c[m];
  };
  return foldChannelConstantIntoConv(add, context, addToBias, /*weightsChanged=*/false,
                                     "adds-folded-into-conv-bias");
}

}  // namespace onyx::passes
