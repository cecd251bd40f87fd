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
      info<DeadCodeElimination>(),
      info<IdentityElimination>(),
      info<ConstantFolding>(),
      info<ShapeFolding>(),
      info<CommonSubexpressionElimination>(),
      info<ConstantDeduplication>(),
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

// Cleanups first (so patterns see plain graphs), then the shape-aware folds that turn exporters' run-time
// shape arithmetic into constants, then the fusions, which need constant weights and static shapes, then
// the cleanups again for what the fusions left behind. Passes not registered in this build (the fusion
// passes land separately) are left out, so the pipeline always runs.
const std::vector<std::string>& defaultPipeline() {
  static const std::vector<std::string> pipeline = [] {
    const std::vector<std::string> order = {
        "identity-elimination",
        "constant-folding",
        "shape-folding",
        "constant-folding",
        "constant-deduplication",
        "common-subexpression-elimination",
        "identity-elimination",
        "dead-code-elimination",
        "transpose-cancellation",
        "squeeze-unsqueeze-cancellation",
        "reshape-chain-fusion",
        "conv-bn-fusion",
        "conv-add-fusion",
        "conv-mul-fusion",
        "matmul-add-to-gemm",
        "gelu-fusion",
        "layer-norm-fusion",
        "broadcast-reduction-elimination",
        "identity-elimination",
        "constant-folding",
        "elementwise-fusion",
        "constant-deduplication",
        "common-subexpression-elimination",
        "dead-code-elimination",
    };
    std::vector<std::string> registered;
    for (const std::string& name : order)
      if (createPass(name)) registered.push_back(name);
    return registered;
  }();
  return pipeline;
}

}  // namespace onyx::passes
