// Conv then Mul by a per-channel constant c: the Conv with weights W * c (per output channel) and bias b * c.
#include "passes/all_passes.h"
#include "passes/conv_folding.h"

namespace onyx::passes {

std::span<const std::string_view> ConvMulFusion::rootOps() const {
  static constexpr std::string_view kOps[] = {"Mul"};
  return kOps;
}

PatternResult ConvMulFusion::matchAndRewrite(Node& mul, PatternContext& context) {
  auto scale = [](ConvWeights& conv, const std::vector<float>& c) {
    int64_t inner = conv.perChannel();
    for (int64_t m = 0; m < conv.channels(); ++m) {
      float factor = c[size_t(m)];
      for (int64_t k = 0; k < inner; ++k) conv.weights[size_t(m * inner + k)] *= factor;
      conv.bias[size_t(m)] *= factor;
    }
  };
  return foldChannelConstantIntoConv(mul, context, scale, /*weightsChanged=*/true, "muls-folded-into-conv");
}

}  // namespace onyx::passes
