#pragma once
// The element-wise chain after a MatMul that its fast kernels compute in their output pass: the oneDNN
// MatMul on the CPU (as post-ops) and the Vulkan MatMul (as shader stages). One reading serves both, so a
// Vulkan node that falls back to the CPU at run time hands the same epilogue to the oneDNN kernel.
#include <optional>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

enum class MatmulEpilogueKind { Linear, Relu, LeakyRelu, Tanh, Sigmoid, GeluErf, Bias, Residual };

struct MatmulEpilogueStage {
  MatmulEpilogueKind kind = MatmulEpilogueKind::Relu;
  float a = 0, b = 0;                  // Linear: v * a + b; LeakyRelu: alpha in a
  const onyx::Tensor* bias = nullptr;  // Bias: the constant added (along the output's last dim, when it fuses)
  int residual = -1;                   // Residual: the KernelContext::epilogueOperand index
};

// The chain as stages, or nullopt when a node is none of: Relu, LeakyRelu, Tanh, Sigmoid; GELU with the exact
// erf as exporters write it (Div by sqrt 2, Erf, Add 1, Mul by the input, Mul by 0.5: one stage); a Mul, Div,
// Add or Sub of a float32 scalar constant (consecutive ones merge into one Linear stage); an Add of a float32
// constant (Bias); one Add of a run-time tensor (Residual). Each kernel adds its own limits on top.
std::optional<std::vector<MatmulEpilogueStage>> matmulEpilogueChain(const std::vector<EpilogueOp>& ops);

}  // namespace onyx::exec
