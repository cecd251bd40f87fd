#pragma once
// Pass classes, declared here so the registry and tests can name them; each is defined in its own file.
#include "passes/pass.h"

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

// Removes Identity, inference-mode Dropout, same-type Cast, identity Transpose, and Reshape/Expand/Squeeze/
// Unsqueeze/Flatten that do not change the shape under the inferred symbolic shapes.
class IdentityElimination final : public Pass {
 public:
  std::string_view name() const override { return "identity-elimination"; }
  std::string_view summary() const override {
    return "Remove Identity, inference Dropout, same-type Cast, identity Transpose and no-op reshapes";
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

}  // namespace onyx::passes
