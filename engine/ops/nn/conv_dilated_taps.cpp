#include "ops/nn/conv_dilated_taps.h"

#include <algorithm>

#include "exec/channels_last.h"
#include "exec/cpu/fast_math.h"
#include "exec/cpu/window_geometry.h"
#include "ops/contrib/nbits_gemm.h"

namespace onyx::exec {

namespace {

// The outputs o in [0, outSize) whose input o * stride - pad + tap lies in [0, size): [first, end).
std::pair<int64_t, int64_t> insideOutputs(int64_t outSize, int64_t stride, int64_t pad, int64_t tap, int64_t size) {
  const int64_t low = pad - tap, high = size + pad - tap;  // o * stride in [low, high)
  const int64_t first = low <= 0 ? 0 : (low + stride - 1) / stride;
  const int64_t end = high <= 0 ? 0 : std::min(outSize, (high - 1) / stride + 1);
  return {std::min(first, end), end};
}

}  // namespace

bool ConvDilatedTaps::applies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                              std::span<const ConvEpilogueStage> stages) {
  if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() != 4 || w.rank() != 4) return false;
  if (x.blocked16() || !ctx.inputIsConstant(1)) return false;
  if (ctx.attrInt("group", 1) != 1 || w.dim(1) != x.dim(1)) return false;
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty() && (bias.dtype() != DataType::Float || bias.count() != w.dim(0))) return false;
  for (const ConvEpilogueStage& stage : stages)
    if (stage.kind == ConvEpilogueKind::AddResidual) return false;
  auto g = windowGeometry(ctx, {x.dim(2), x.dim(3)}, {w.dim(2), w.dim(3)}, false);
  if (!g) return false;  // the oneDNN path reports it
  return g->dilations[0] > 1 || g->dilations[1] > 1;
}

void ConvDilatedTaps::pack(const TensorValue& w) {
  if (packedFrom_ == w.raw()) return;
  const int64_t outputs = w.dim(0), channels = w.dim(1), taps = w.dim(2) * w.dim(3);
  const int64_t size = contrib::packedPanelFloats(channels, outputs);
  panels_.assign(size_t(taps * size), 0.0f);
  std::vector<float> tapWeights(size_t(outputs * channels));
  const float* weights = w.data<float>();
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t o = 0; o < outputs; ++o)
      for (int64_t c = 0; c < channels; ++c)
        tapWeights[size_t(o * channels + c)] = weights[(o * channels + c) * taps + t];
    // Given transposed: output o's row of C weights, as the product's n x k.
    contrib::packPanels(tapWeights.data(), channels, channels, outputs, true, panels_.data() + t * size);
  }
  packedFrom_ = w.raw();
}

Expected<void> ConvDilatedTaps::run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                    std::span<const ConvEpilogueStage> stages) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t M = w.dim(0), KH = w.dim(2), KW = w.dim(3);
  auto g = windowGeometry(ctx, {H, W}, {KH, KW}, false);
  if (!g) return g.error();
  const int64_t OH = g->outSize[0], OW = g->outSize[1];
  auto y = ctx.allocateOutput(0, DataType::Float, {N, M, OH, OW});
  if (!y) return y.error();
  (*y)->setChannelsLast(ctx.outputMayBeChannelsLast());
  pack(w);
  const int64_t panelSize = contrib::packedPanelFloats(C, M);
  const TensorValue& bias = ctx.input(2);
  // The products read and write channels-last rows (a plain input or output through the staging's buffers).
  const float* px = staging_.input(x);
  float* py = staging_.output(**y);
  const contrib::NBitsIsa isa = contrib::nativeNBitsIsa();
  const int64_t sh = g->strides[0], sw = g->strides[1], dh = g->dilations[0], dw = g->dilations[1];
  const int64_t ph = g->padsBegin[0], pw = g->padsBegin[1];
  // Output rows split over the threads; each keeps one tap's product of a row.
  ctx.parallelFor(N * OH, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> product(size_t(OW * M));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / OH, oh = row % OH;
      float* out = py + row * OW * M;
      for (int64_t ow = 0; ow < OW; ++ow) {
        if (bias.empty())
          std::fill(out + ow * M, out + (ow + 1) * M, 0.0f);
        else
          std::copy(bias.data<float>(), bias.data<float>() + M, out + ow * M);
      }
      for (int64_t ky = 0; ky < KH; ++ky) {
        const int64_t ih = oh * sh - ph + ky * dh;
        if (ih < 0 || ih >= H) continue;
        for (int64_t kx = 0; kx < KW; ++kx) {
          const auto [first, last] = insideOutputs(OW, sw, pw, kx * dw, W);
          if (first >= last) continue;
          const float* in = px + ((n * H + ih) * W + first * sw - pw + kx * dw) * C;
          contrib::multiplyPacked(in, sw * C, last - first, panels_.data() + (ky * KW + kx) * panelSize, C, M,
                                  product.data(), M, isa);
          fastAddInto(out + first * M, product.data(), (last - first) * M);
        }
      }
      for (const ConvEpilogueStage& stage : stages) applyConvEpilogueStage(stage, out, OW * M);
    }
  });
  staging_.finish(**y);
  return {};
}

}  // namespace onyx::exec
