#pragma once
// Pass classes, declared here so the registry and tests can name them; each is defined in its own file.
#include "passes/pass.h"

namespace onyx::passes {

#define ONYX_DECLARE_PASS(Class, kebabName, oneLine)              \
  class Class final : public Pass {                               \
   public:                                                        \
    std::string_view name() const override { return kebabName; }  \
    std::string_view summary() const override { return oneLine; } \
    Expected<bool> run(PassContext& context) override;            \
  };

// Pattern and fusion passes.
ONYX_DECLARE_PASS(TransposeCancellation, "transpose-cancellation",
                  "Merges Transpose chains into one Transpose (or none) and folds 2-D Transposes into Gemm")
ONYX_DECLARE_PASS(SqueezeUnsqueezeCancellation, "squeeze-unsqueeze-cancellation",
                  "Removes an Unsqueeze that undoes a Squeeze over the same axes, and the reverse")
ONYX_DECLARE_PASS(ReshapeChainFusion, "reshape-chain-fusion",
                  "Reshape or Flatten followed by Reshape becomes one Reshape")
ONYX_DECLARE_PASS(ConvBnFusion, "conv-bn-fusion",
                  "Folds an inference BatchNormalization after a Conv into the Conv's weights and bias")
ONYX_DECLARE_PASS(ConvAddFusion, "conv-add-fusion",
                  "Folds an Add of a per-channel constant after a Conv into the Conv's bias")
ONYX_DECLARE_PASS(ConvMulFusion, "conv-mul-fusion",
                  "Folds a Mul by a per-channel constant after a Conv into the Conv's weights and bias")
ONYX_DECLARE_PASS(MatMulAddToGemm, "matmul-add-to-gemm",
                  "A 2-D MatMul followed by a bias Add becomes one Gemm")
ONYX_DECLARE_PASS(GeluFusion, "gelu-fusion", "The erf and tanh GELU formulas become one Gelu (opset 20+)")
ONYX_DECLARE_PASS(
    LayerNormFusion, "layer-norm-fusion",
    "The mean/variance/normalize/scale/shift formula becomes one LayerNormalization (opset 17+)")
ONYX_DECLARE_PASS(BroadcastReductionElimination, "broadcast-reduction-elimination",
                  "Removes reductions (and sum-to reshapes) whose input already has the target shape")
ONYX_DECLARE_PASS(ElementwiseFusion, "elementwise-fusion",
                  "Chains of element-wise ops become one call of a model-local function in domain onyx.fused")

#undef ONYX_DECLARE_PASS

}  // namespace onyx::passes
