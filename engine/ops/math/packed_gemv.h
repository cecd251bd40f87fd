#pragma once
// y = W x for one input vector and constant weights: W packed once in 64-output panels (fastGemvPanels) and
// streamed once a run, the panels split between threads. A one-pixel 1 x 1 Conv (ConvPixelGemv) and a
// one-row MatMul or Gemm (a classifier's Linear at batch 1) are such products; oneDNN's primitives took 1.5-2x
// the time it takes to read the weights.
#include <cstdint>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

class PackedGemv {
 public:
  // Packs W, n outputs of k weights each, unless the panels already hold these: output o's weight i lies at
  // w[o * outputStride + i * inputStride] ([n, k] storage: k, 1; [k, n]: 1, n).
  void pack(const float* w, int64_t k, int64_t n, int64_t outputStride, int64_t inputStride);
  // y[0, n) = W x[0, k) on the threads of ctx's pool.
  void run(const KernelContext& ctx, const float* x, float* y) const;

 private:
  const float* packedFrom_ = nullptr;
  int64_t k_ = 0, n_ = 0, outputStride_ = 0, inputStride_ = 0;
  std::vector<float> panels_;
};

}  // namespace onyx::exec
