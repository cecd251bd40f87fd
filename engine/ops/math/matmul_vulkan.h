#pragma once
// The tiled GEMM dispatch behind MatMul, Gemm and Conv's GEMM path (matmul_vulkan.comp).
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
};

// Rows per thread of the GEMM tile (matmul_vulkan.comp's and conv_gemm_vulkan.comp's TM) for a problem.
int gemmRowsPerThread(int64_t m, int64_t n, int64_t batches);

Expected<void> gemmOnDevice(VulkanRun& run, const GemmCall& g, const TensorValue& a, const TensorValue& b,
                            const TensorValue& y);

}  // namespace onyx::exec::vulkan
