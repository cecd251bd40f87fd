#pragma once
// The element-wise chain after a Conv that its fast kernels fuse into their output pass: the oneDNN Conv on
// the CPU (as post-ops) and the Vulkan Conv (as shader stages). One reading of the chain serves both, so a
// Vulkan node that falls back to the CPU at run time can hand its epilogue to the oneDNN kernel.
#include <optional>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

enum class ConvEpilogueKind { Relu, LeakyRelu, Clip, Sigmoid, Silu, Tanh, AddResidual };

struct ConvEpilogueStage {
  ConvEpilogueKind kind = ConvEpilogueKind::Relu;
  float a = 0, b = 0;  // LeakyRelu: alpha; Clip: lo, hi
  int residual = -1;   // AddResidual: the KernelContext::epilogueOperand index
};

// The chain as stages, or nullopt when an op is not one the kernels fuse: Relu, LeakyRelu, Tanh, Clip with
// constant bounds, Sigmoid (Sigmoid then a Mul of the Sigmoid's input is one SiLU stage), and one Add of a
// run-time residual. Each kernel adds its own limits (repeats, stage count) on top.
std::optional<std::vector<ConvEpilogueStage>> convEpilogueChain(const std::vector<EpilogueOp>& ops);

// One stage over n floats in place, on the CPU's vector code; AddResidual is not one it can apply.
void applyConvEpilogueStage(const ConvEpilogueStage& stage, float* y, int64_t n);

}  // namespace onyx::exec
