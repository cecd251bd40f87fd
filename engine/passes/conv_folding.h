#pragma once
// What conv-bn-fusion, conv-add-fusion and conv-mul-fusion share: reading a Conv's constant float32 weights
// and bias, a per-output-channel constant, writing folded weights back as new constants, and the one loop of
// conv-add and conv-mul (a binary op of a Conv's output and a per-channel constant).
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "passes/pattern_driver.h"

namespace onyx::passes {

struct ConvWeights {
  Node* conv = nullptr;
  std::vector<int64_t> weightDims;  // [M, C/group, k...]
  std::vector<float> weights;
  std::vector<float> bias;  // M values (zeros when the Conv had none)
  int64_t channels() const { return weightDims.empty() ? 0 : weightDims[0]; }
  int64_t perChannel() const { return channels() ? int64_t(weights.size()) / channels() : 0; }
};

// The weights of `conv`, whose output `value` is read by the root being matched, when `value` has no other
// use and the weights and bias are constant float32; otherwise the skip saying why.
std::variant<ConvWeights, PatternResult> convWeightsOf(PatternContext& context, Node& conv,
                                                       const Value* value);
// `c` as M per-channel values, when it broadcasts against the Conv output [N, M, spatial...] along the
// channel axis only (a scalar counts); nullopt otherwise.
std::optional<std::vector<float>> perChannelConstant(const Value* c, const ConvWeights& conv);
// Replaces the Conv's bias input (and its weight input, when `weightsChanged`) with new constants holding
// `conv.bias` and `conv.weights`, and removes the old ones when nothing else reads them.
void writeConvWeights(PatternContext& context, const ConvWeights& conv, bool weightsChanged = true);

// Folds `fold(conv, c)` into the Conv when `root` (Add or Mul) reads a Conv's output and a per-channel
// constant c; counts `counter`.
using ChannelFold = std::function<void(ConvWeights& conv, const std::vector<float>& c)>;
PatternResult foldChannelConstantIntoConv(Node& root, PatternContext& context, const ChannelFold& fold,
                                          bool weightsChanged, const std::string& counter);

}  // namespace onyx::passes
