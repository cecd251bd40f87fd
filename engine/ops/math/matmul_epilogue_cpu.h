#pragma once
// A MatMul epilogue (matmul_epilogue_chain.h) computed by a CPU kernel that writes its own product
// (MatMulNBits' panels): the stages run over each tile of the output right after the tile is computed,
// while it is in cache, where each epilogue node on its own read and wrote the whole tensor. The
// element-wise functions are the unfused nodes' fast kernels (exec/cpu/fast_math.h), so both agree.
#include <cstdint>
#include <optional>
#include <vector>

#include "exec/kernel.h"
#include "ops/math/matmul_epilogue_chain.h"

namespace onyx::exec {

class CpuMatmulEpilogue {
 public:
  // nullopt when the chain is not one (matmulEpilogueChain) or a bias is not float32.
  static std::optional<CpuMatmulEpilogue> of(const std::vector<EpilogueOp>& ops);

  bool empty() const { return stages_.empty(); }
  // Whether this run's operands fit a float32 output of `outDims`: each bias runs along its last dim, and
  // each residual is float32 in plain storage, of the output's dims or one row of them.
  bool fits(const KernelContext& ctx, const Dims& outDims) const;
  // Applies the stages to rows [row0, row0 + rows) and columns [col0, col0 + cols) of the output y, whose
  // rows are `ldy` floats apart and `n` columns wide.
  void apply(const KernelContext& ctx, float* y, int64_t ldy, int64_t n, int64_t row0, int64_t rows, int64_t col0,
             int64_t cols) const;

 private:
  struct Stage {
    MatmulEpilogueKind kind;
    float a = 0, b = 0;
    std::vector<float> bias;  // Bias: its values, along the output's last dim
    size_t biasRank = 0;
    int residual = -1;        // Residual: the KernelContext::epilogueOperand index
  };
  std::vector<Stage> stages_;
};

}  // namespace onyx::exec
