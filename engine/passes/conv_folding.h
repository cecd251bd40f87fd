#pragma once
// What conv-bn-fusion, conv-add-fusion and conv-mul-fusion share: reading a Conv's constant float32 weights
// and bias, a per-output-channel constant, and writing folded weights back as new initializers.
#include <string>
#include <variant>
#include <vector>

#include "passes/pass.h"

namespace onyx::passes {

struct ConvWeights {
  Node* conv = nullptr;
  std::vector<int64_t> weightDims;  // [M, C/group, k...]
  std::vector<float> weights;
  std::vector<float> bias;  // M values (zeros when the Conv had none)
  int64_t channels() const { return weightDims.empty() ? 0 : weightDims[0]; }
  int64_t perChannel() const { return channels() ? int64_t(weights.size()) / channels() : 0; }
};

// The Conv producing `value` when `value` is its only output use and its weights and bias are constant
// float32; otherwise the reason (empty when `value` is not a Conv's output at all).
std::variant<ConvWeights, std::string> convFeeding(PassContext& context, const Value* value);
// `c` as M per-channel values, when it broadcasts against the Conv output [N, M, spatial...] along the
// channel axis only (a scalar counts); nullopt otherwise.
std::optional<std::vector<float>> perChannelConstant(const Value* c, const ConvWeights& conv);
// Replaces the Conv's bias input (and its weight input, when `weightsChanged`) with new initializers holding
// `conv.bias` and `conv.weights`.
void writeConvWeights(PassContext& context, const ConvWeights& conv, bool weightsChanged = true);

}  // namespace onyx::passes
