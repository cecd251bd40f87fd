// Shape functions of activations: elementwise, or over an axis with the input's shape.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

// SwiGLU: silu(A) * B, elementwise with broadcasting.
Expected<void> inferSwiGLU(ShapeContext& ctx) { return inferBroadcastPair(ctx); }

}  // namespace

void registerActivationSchemas(OpRegistry& registry) {
  registry.add({"", "Relu", OpCategory::Activation, {1, 6, 13, 14}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Sigmoid", OpCategory::Activation, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Tanh", OpCategory::Activation, {1, 6, 13}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "HardSwish", OpCategory::Activation, {14, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "HardSigmoid", OpCategory::Activation, {1, 6, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "LeakyRelu", OpCategory::Activation, {1, 6, 16}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Elu", OpCategory::Activation, {1, 6, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Selu", OpCategory::Activation, {1, 6, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Celu", OpCategory::Activation, {12, 28}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Softplus", OpCategory::Activation, {1, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Softsign", OpCategory::Activation, {1, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "ThresholdedRelu", OpCategory::Activation, {10, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Gelu", OpCategory::Activation, {20}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Mish", OpCategory::Activation, {18, 22}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Swish", OpCategory::Activation, {24}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "Shrink", OpCategory::Activation, {9}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"", "SwiGLU", OpCategory::Activation, {28}, 2, 2, 1, 1, false, inferSwiGLU});
}

}  // namespace onyx
