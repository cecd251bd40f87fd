#pragma once
// A dilated 2-D Conv as one product per kernel tap, over only the output pixels whose input pixel for that tap
// lies inside the image. DeepLabV3's ASPP convs (3 x 3, dilation 12-36, on 28 x 28 maps at 224 x 224) reach
// mostly padding: with dilation 24 or more only the centre tap reads the image. Without AVX-512 oneDNN's
// only kernel for them is its im2col GEMM, which multiplies the padding too: a 960 -> 256 conv with dilation
// 12 took 17.6 ms under AVX2 against 5.2 with AVX-512's brgconv, which skips it. Here each tap is a product
// of the input pixels it reads (a row segment of channels-last storage) by that tap's weights, packed once in
// the panels of the register-tiled micro-kernel (nbits_gemm.h), added into the output row.
#include <cstdint>
#include <span>
#include <vector>

#include "exec/channels_last.h"
#include "exec/kernel.h"
#include "ops/nn/conv_epilogue_chain.h"

namespace onyx::exec {

class ConvDilatedTaps {
 public:
  // Whether the Conv fits: float32, 4-D, group 1, a dilation above 1, a plain or channels-last input,
  // constant weights, a bias of M values or none, no residual in the epilogue. (Whether it pays is the
  // caller's: where oneDNN has only its GEMM for the Conv.)
  static bool applies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                      std::span<const ConvEpilogueStage> stages);
  // y = conv(x, W) + b, then `stages`, written channels-last where the readers take it, else plain.
  Expected<void> run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                     std::span<const ConvEpilogueStage> stages);

 private:
  void pack(const TensorValue& w);

  const void* packedFrom_ = nullptr;  // the weights the panels hold (constant for the kernel's life)
  std::vector<float> panels_;         // per tap (ky, kx): W[:, :, ky, kx] as C x M, in panels of 32 columns
  ChannelsLastStaging staging_;  // a plain input or output through channels-last buffers
};

}  // namespace onyx::exec
