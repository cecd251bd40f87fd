#pragma once
// Resize's geometry, shared by the CPU and Vulkan kernels: the output dims from scales or sizes (with axes and
// keep_aspect_ratio_policy), and per dim and output index the source taps and weights of the chosen mode
// (nearest, linear, cubic, antialiased) under the coordinate transformation mode. An output index with no taps
// lies outside tf_crop_and_resize's region: it takes the extrapolation value.
#include <cstdint>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

struct ResizeTap {
  int64_t index;
  double weight;
};

struct ResizePlan {
  Dims outDims;
  std::vector<std::vector<std::vector<ResizeTap>>> taps;  // [dim][output index] -> taps
  double extrapolation = 0;

  // Whether dim `d` of an input of `inputSize` there keeps its size and every index: each output index o has
  // the single tap {o, 1}. A dim of 66 resized to 1 has the single tap {0, 1} and is not kept (fuzz_run:
  // the CPU kernel counted its planes from the input and wrote past the output; the Vulkan one read the
  // wrong planes when an inner leading dim shrank).
  bool keepsDim(size_t d, int64_t inputSize) const;
};

// `x` is the data input (only its dims are read); scales, sizes and roi are read from the context's inputs.
Expected<ResizePlan> planResize(KernelContext& ctx, const TensorValue& x);

}  // namespace onyx::exec
