#pragma once
// Pass classes, declared here so the registry and tests can name them; each is defined in its own file.
#include "passes/pass.h"
#include "passes/pattern_driver.h"

namespace onyx::passes {

// Removes nodes whose outputs nothing uses and unused initializers, in every graph and body.
class DeadCodeElimination final : public Pass {
 public:
  std::string_view name() const override { return "dead-code-elimination"; }
  std::string_view summary() const override {
    return "Remove nodes whose outputs are unused and initializers nothing reads";
  }
  Expected<bool> run(PassContext& context) override;
};

// Computes nodes whose inputs are all constants with the CPU kernels and stores the results as
// initializers; Constant nodes become initializers.
class ConstantFolding final : public Pass {
 public:
  std::string_view name() const override { return "constant-folding"; }
  std::string_view summary() const override {
    return "Compute nodes whose inputs are all constants; Constant nodes become initializers";
  }
  Expected<bool> run(PassContext& context) override;
};

// Replaces values that symbolic shape inference knows exactly (Shape -> Gather -> Concat chains of static
// dims) with initializers.
class ShapeFolding final : public Pass {
 public:
  std::string_view name() const override { return "shape-folding"; }
  std::string_view summary() const override {
    return "Replace shape computations whose values are static under the inferred shapes by constants";
  }
  Expected<bool> run(PassContext& context) override;
};

// Merges nodes with the same op, domain, inputs and attributes.
class CommonSubexpressionElimination final : public Pass {
 public:
  std::string_view name() const override { return "common-subexpression-elimination"; }
  std::string_view summary() const override { return "Merge nodes with the same op, inputs and attributes"; }
  Expected<bool> run(PassContext& context) override;
};

// Makes identical initializers share one value.
class ConstantDeduplication final : public Pass {
 public:
  std::string_view name() const override { return "constant-deduplication"; }
  std::string_view summary() const override { return "Make identical initializers share one value"; }
  Expected<bool> run(PassContext& context) override;
};

// Pattern passes: each matches at one root node and the pattern driver (pattern_driver.h) walks every graph.
#define ONYX_DECLARE_PATTERN_PASS(Class, kebabName, oneLine)                     \
  class Class final : public PatternPass {                                       \
   public:                                                                       \
    std::string_view name() const override { return kebabName; }                 \
    std::string_view summary() const override { return oneLine; }                \
                                                                                 \
   protected:                                                                    \
    std::span<const std::string_view> rootOps() const override;                  \
    PatternResult matchAndRewrite(Node& root, PatternContext& context) override; \
  };

// Removes Identity, inference-mode Dropout, same-type Cast, identity Transpose, and Reshape/Expand/Squeeze/
// Unsqueeze/Flatten that do not change the shape under the inferred symbolic shapes.
ONYX_DECLARE_PATTERN_PASS(
    IdentityElimination, "identity-elimination",
    "Remove Identity, inference Dropout, same-type Cast, identity Transpose and no-op reshapes")
ONYX_DECLARE_PATTERN_PASS(
    TransposeCancellation, "transpose-cancellation",
    "Merges Transpose chains into one Transpose (or none) and folds 2-D Transposes into Gemm")
ONYX_DECLARE_PATTERN_PASS(SqueezeUnsqueezeCancellation, "squeeze-unsqueeze-cancellation",
                          "Removes an Unsqueeze that undoes a Squeeze over the same axes, and the reverse")
ONYX_DECLARE_PATTERN_PASS(ReshapeChainFusion, "reshape-chain-fusion",
                          "Reshape or Flatten followed by Reshape becomes one Reshape")
ONYX_DECLARE_PATTERN_PASS(
    ConvBnFusion, "conv-bn-fusion",
    "Folds an inference BatchNormalization after a Conv into the Conv's weights and bias")
ONYX_DECLARE_PATTERN_PASS(ConvAddFusion, "conv-add-fusion",
                          "Folds an Add of a per-channel constant after a Conv into the Conv's bias")
ONYX_DECLARE_PATTERN_PASS(
    ConvMulFusion, "conv-mul-fusion",
    "Folds a Mul by a per-channel constant after a Conv into the Conv's weights and bias")
ONYX_DECLARE_PATTERN_PASS(MatMulAddToGemm, "matmul-add-to-gemm",
                          "A 2-D MatMul followed by a bias Add becomes one Gemm")
ONYX_DECLARE_PATTERN_PASS(GeluFusion, "gelu-fusion",
                          "The erf and tanh GELU formulas become one Gelu (opset 20+)")
ONYX_DECLARE_PATTERN_PASS(
    LayerNormFusion, "layer-norm-fusion",
    "The mean/variance/normalize/scale/shift formula becomes one LayerNormalization (opset 17+)")
ONYX_DECLARE_PATTERN_PASS(BroadcastReductionElimination, "broadcast-reduction-elimination",
                          "Removes reductions (and sum-to reshapes) whose input already has the target shape")
#undef ONYX_DECLARE_PATTERN_PASS

// Groups of element-wise ops become one call of a model-local function.
class ElementwiseFusion final : public Pass {
 public:
  std::string_view name() const override { return "elementwise-fusion"; }
  std::string_view summary() const override {
    return "Chains of element-wise ops become one call of a model-local function in domain onyx.fused";
  }
  Expected<bool> run(PassContext& context) override;
};

}  // namespace onyx::passes
