#pragma once
// The tiled GEMM dispatch behind MatMul, Gemm and Conv's GEMM path (matmul_vulkan.comp).
#include <array>

#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {

// y[yBase + (batch*m + i)*n + j] = alpha * sum_k A[i, k] B[k, j] + beta * bias[batch*biasBatch + i*biasM + j*biasN],
// with A[i, k] = a[aBase + batchOffsetA + i*aM + k*aK] and B likewise; up to 3 batch dims.
struct GemmCall {
  int64_t m = 0, n = 0, k = 0;
  Dims batchDims = {1, 1, 1}, aBatch = {0, 0, 0}, bBatch = {0, 0, 0};
  int64_t aM = 0, aK = 0, bK = 0, bN = 0;
  const TensorValue* bias = nullptr;
  int64_t biasM = 0, biasN = 0, biasBatch = 0;
  float alpha = 1, beta = 1;
  int64_t aBase = 0, bBase = 0, yBase = 0;
  // MatMul's fused epilogue after alpha and the bias: conv_epilogue.glsl codes, two parameters per stage, and
  // the residual operand (the output's shape) when a stage adds one.
  std::array<int32_t, 3> epilogueCodes{};
  std::array<float, 6> epilogueParams{};
  const TensorValue* residual = nullptr;
};

// Rows per thread of the GEMM tile (matmul_vulkan.comp's and conv_gemm_vulkan.comp's TM) for a problem.
int gemmRowsPerThread(int64_t m, int64_t n, int64_t batches);

// Parts of K for a problem with too few tiles to fill a discrete GPU (1: no split). Each part's group writes
// raw sums into a float32 scratch of `parts` outputs; addSplitKParts adds them and finishes the output.
int gemmSplitK(VulkanRun& run, int64_t m, int64_t n, int64_t k, int64_t batches, int rowsPerThread, bool float16);
// gemm_splitk_vulkan.comp over y: `push` holds M (2), N (3), bias fields (4-9) and epilogue parameters
// (19-24); mode 0 finishes a GEMM (alpha, beta, bias strides), mode 1 a Conv (bias per channel, epilogue).
Expected<void> addSplitKParts(VulkanRun& run, const TensorValue& partial, int parts, int mode, Push push,
                              const std::vector<int32_t>& epilogueCodes, const TensorValue* bias,
                              const TensorValue* residual, const TensorValue& y);

Expected<void> gemmOnDevice(VulkanRun& run, const GemmCall& g, const TensorValue& a, const TensorValue& b,
                            const TensorValue& y);

}  // namespace onyx::exec::vulkan
