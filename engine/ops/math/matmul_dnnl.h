#pragma once
// What MatMul and Gemm through oneDNN (matmul_dnnl_cpu.cpp) share with their column slabs (MatmulSlabs).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/cpu/dnnl_common.h"
#include "exec/kernel.h"

namespace onyx::exec {

// One node of a MatMul epilogue as a oneDNN post-op.
struct MatmulPostOp {
  enum class Kind { Eltwise, Bias, Residual } kind = Kind::Eltwise;
  dnnl::algorithm algorithm = dnnl::algorithm::undef;
  float alpha = 0, beta = 0;
  TensorValue bias;   // Bias: a constant along the last output dim
  int residual = -1;  // Residual: KernelContext::epilogueOperand index, broadcasting to the output
};

// An operand as the oneDNN path reads it: float32, rank 1 to 6, not empty; its dims (through a folded
// Transpose) and the stored tensor's strides for them when the primitive reads it permuted.
struct MatmulOperand {
  const TensorValue* storage = nullptr;
  Dims dims;
  memory::dims strides;  // empty: row-major
};

// The operands as oneDNN sees them: A (M x K), B (K x N) and Y (M x N) with equal-rank batch dims, or, for a
// 2-D B, A's batch folded into M (one big GEMM).
struct MatmulShapes {
  MatmulOperand a, b;
  Dims outDims;             // the node's output
  Dims aDims, bDims, yDims;  // as stored (Gemm's transposed operands keep their stored order)
  bool ta = false, tb = false;
  int64_t n = 0;
};

// A MatMul or Gemm in a shared-cores run (ThreadPool::sharesCores) as column slabs: each slab a oneDNN matmul of
// its own over some columns of B and Y (whole blocks of 64) and all rows, one per 2 MFLOP (slabsForWork), on
// one thread, run as the pool's tasks, where the whole product would run on one thread. Each slab reads all of
// A and its columns of B. For a constant 2-D B (packed once per slab) and Y of [rows, N] (A's batch folded into
// rows), with the epilogue's bias, residual (as a binary operand) and activations on each slab's columns.
class MatmulSlabs {
 public:
  MatmulSlabs();
  ~MatmulSlabs();
  void clear();  // forgets the plans (a new epilogue)
  // Y = A B as slabs; false, having written nothing, where it does not fit or would not split. srcMd: A as the
  // whole product reads it; transposedB: Gemm's transB; `residuals`: per Residual post-op, its dims in Y.
  Expected<bool> run(KernelContext& ctx, const MatmulShapes& s, const memory::desc& srcMd, bool transposedB,
                     const std::vector<MatmulPostOp>& postOps, const std::vector<Dims>& residuals, bool fused,
                     float alpha, TensorValue& y, std::string& implementation);
  static constexpr int64_t kColumnsPerBlock = 64;

 private:
  struct Plan;
  std::map<Dims, std::unique_ptr<Plan>> plans_;  // a null plan: this product does not fit
};

}  // namespace onyx::exec
