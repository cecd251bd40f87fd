#pragma once
// A Conv of one input pixel through a 1 x 1 kernel is a matrix-vector product: the squeeze-excitation
// blocks of EfficientNet and MobileNetV3 run two per block on the globally pooled channels (fc1: C -> C/4,
// fc2: back). oneDNN's convolution took 6-30 us for each (EfficientNet-B0 has 32); streaming the weights
// once, packed in panels (PackedGemv), takes what reading them costs.
#include <cstdint>
#include <span>
#include <vector>

#include "exec/kernel.h"
#include "ops/math/packed_gemv.h"
#include "ops/nn/conv_epilogue_chain.h"

namespace onyx::exec {

class ConvPixelGemv {
 public:
  // Whether the Conv is one: float32, batch 1, every spatial dim 1, group 1, a 1 x 1 kernel, no padding,
  // constant weights, no bias of another size and no residual in the epilogue.
  static bool applies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                      std::span<const ConvEpilogueStage> stages);
  // y = W x + b, then `stages` (the fused epilogue's, or none), written as [1, M, 1, ...].
  Expected<void> run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                     std::span<const ConvEpilogueStage> stages);

 private:
  PackedGemv gemv_;
};

}  // namespace onyx::exec
