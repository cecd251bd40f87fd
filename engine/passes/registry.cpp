// The catalogue of passes. Adding a pass: write passes/<name>.cpp with its class and a factory declared in
// passes/all_passes.h, then list it here.
#include <algorithm>

#include "passes/all_passes.h"
#include "passes/pass.h"

namespace onyx::passes {

namespace {
template <typename P>
PassInfo info() {
  P pass;
  return {std::string(pass.name()), std::string(pass.summary()), [] { return std::make_unique<P>(); }};
}
}  // namespace

const std::vector<PassInfo>& passRegistry() {
  static const std::vector<PassInfo> registry = {
      // Pattern and fusion passes.
      info<TransposeCancellation>(), info<SqueezeUnsqueezeCancellation>(),
      info<ReshapeChainFusion>(),    info<ConvBnFusion>(),
      info<ConvAddFusion>(),         info<ConvMulFusion>(),
      info<MatMulAddToGemm>(),       info<GeluFusion>(),
      info<LayerNormFusion>(),       info<BroadcastReductionElimination>(),
      info<ElementwiseFusion>(),
  };
  return registry;
}

std::unique_ptr<Pass> createPass(std::string_view name) {
  const auto& registry = passRegistry();
  auto found =
      std::find_if(registry.begin(), registry.end(), [&](const PassInfo& p) { return p.name == name; });
  return found == registry.end() ? nullptr : found->create();
}

const std::vector<std::string>& defaultPipeline() {
  static const std::vector<std::string> pipeline = {};
  return pipeline;
}

}  // namespace onyx::passes
