#pragma once
// A dense 3 x 3 stride-1 Conv as Winograd's F(4 x 4, 3 x 3), for CPUs where oneDNN has no Winograd kernel
// (it has one for AVX-512 only). On AVX2 oneDNN's direct convolution was all it had for resnet18's layer1-3
// convs: 1.3-1.8 ms each at 2 threads where its AVX-512 Winograd took 0.5-0.7, so forced to AVX2 the model
// ran at 1.3x ONNX Runtime's time. Each 4 x 4 block of outputs (a tile) reads a 6 x 6 window of the input:
//   1. the window's channels, transformed (B^T d B): 36 rows of C values per tile;
//   2. per position of those 36, a product of the tiles' rows (tiles x C) by the weights transformed the
//      same way (G g G^T, C x M, packed once in the register-tiled micro-kernel's panels, nbits_gemm.h);
//   3. the 36 products per tile and output channel transformed back (A^T m A), plus bias and the epilogue.
// The products do a quarter of the direct convolution's multiply-adds. Tiles go in chunks whose transformed
// inputs and products stay in the caches.
#include <cstdint>
#include <span>
#include <vector>

#include "exec/channels_last.h"
#include "exec/kernel.h"
#include "ops/nn/conv_epilogue_chain.h"

namespace onyx::exec {

class ConvWinogradF43 {
 public:
  // Whether the Conv fits: float32, 4-D, group 1, 3 x 3 weights that are constant, stride 1, no dilation, a
  // plain or channels-last input, a bias of M values or none, residuals of the output's shape stored plain
  // or channels-last. (Whether it pays is the caller's: convWinogradPays, where oneDNN has no Winograd.)
  static bool applies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                      std::span<const ConvEpilogueStage> stages);
  // y = conv(x, W) + b, then `stages`, written channels-last where the readers take it, else plain.
  Expected<void> run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                     std::span<const ConvEpilogueStage> stages);

 private:
  void pack(const TensorValue& w);

  const void* packedFrom_ = nullptr;  // the weights the panels hold (constant for the kernel's life)
  std::vector<float> panels_;         // per position p of 36: (G g G^T)[p] as C x M, in panels of 32 columns
  std::vector<float> transformed_;    // per chunk: 36 x tiles x C
  std::vector<float> products_;       // per chunk: 36 x tiles x M
  ChannelsLastStaging staging_;  // a plain input or output through channels-last buffers
};

}  // namespace onyx::exec
