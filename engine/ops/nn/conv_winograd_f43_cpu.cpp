#include "ops/nn/conv_winograd_f43.h"

#include <algorithm>
#include <array>

#include "exec/channels_last.h"
#include "exec/cpu/fast_math.h"
#include "exec/cpu/isa_dispatch.h"
#include "exec/cpu/window_geometry.h"
#include "ops/contrib/nbits_gemm.h"

namespace onyx::exec {

namespace {

constexpr int64_t kTile = 4;         // outputs per side of a tile
constexpr int64_t kWindow = 6;       // inputs per side of its window
constexpr int64_t kPositions = kWindow * kWindow;
constexpr int64_t kChannelBlock = 64;  // channels the transforms hold in their scratch at a time
// Transformed inputs and products of one chunk of tiles: about what the two cores' L2 caches hold, so that
// the products read what the input transform wrote, and the output transform what they wrote, from cache.
constexpr int64_t kChunkBytes = int64_t(2) << 20;

// One tile's window transformed, B^T d B: window[i * 6 + j] is input pixel (i, j)'s C channels (null where it
// lies in the padding), and position p's C values go to out + p * stride. B^T's rows, the points 0, +-1, +-2
// and infinity: (4 0 -5 0 1 0) (0 -4 -4 1 1 0) (0 4 -4 -1 1 0) (0 -2 -1 2 1 0) (0 2 -1 -2 1 0) (0 4 0 -5 0 1).
ONYX_ISA_BODY void transformWindowBody(const float* const* window, int64_t channels, float* out, int64_t stride) {
  alignas(64) float rows[kPositions][kChannelBlock];     // d B, row by row
  alignas(64) float columns[kPositions][kChannelBlock];  // B^T d B
  alignas(64) float zero[kChannelBlock] = {};
  for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
    const int64_t n = std::min(kChannelBlock, channels - c0);
    for (int i = 0; i < kWindow; ++i) {
      const float* d[kWindow];
      for (int j = 0; j < kWindow; ++j) d[j] = window[i * kWindow + j] ? window[i * kWindow + j] + c0 : zero;
      float* t = rows[i * kWindow];
      for (int64_t c = 0; c < n; ++c) {
        const float a0 = d[0][c], a1 = d[1][c], a2 = d[2][c], a3 = d[3][c], a4 = d[4][c], a5 = d[5][c];
        t[c] = 4.0f * a0 - 5.0f * a2 + a4;
        t[kChannelBlock + c] = a3 + a4 - 4.0f * (a1 + a2);
        t[2 * kChannelBlock + c] = a4 - a3 + 4.0f * (a1 - a2);
        t[3 * kChannelBlock + c] = a4 - a2 + 2.0f * (a3 - a1);
        t[4 * kChannelBlock + c] = a4 - a2 + 2.0f * (a1 - a3);
        t[5 * kChannelBlock + c] = 4.0f * a1 - 5.0f * a3 + a5;
      }
    }
    // Then the columns, into scratch again (stores to `out` at run-time strides kept GCC from vectorising).
    for (int j = 0; j < kWindow; ++j) {
      const float* s[kWindow];
      for (int i = 0; i < kWindow; ++i) s[i] = rows[i * kWindow + j];
      float* t = columns[j];
      for (int64_t c = 0; c < n; ++c) {
        const float a0 = s[0][c], a1 = s[1][c], a2 = s[2][c], a3 = s[3][c], a4 = s[4][c], a5 = s[5][c];
        t[c] = 4.0f * a0 - 5.0f * a2 + a4;
        t[kWindow * kChannelBlock + c] = a3 + a4 - 4.0f * (a1 + a2);
        t[2 * kWindow * kChannelBlock + c] = a4 - a3 + 4.0f * (a1 - a2);
        t[3 * kWindow * kChannelBlock + c] = a4 - a2 + 2.0f * (a3 - a1);
        t[4 * kWindow * kChannelBlock + c] = a4 - a2 + 2.0f * (a1 - a3);
        t[5 * kWindow * kChannelBlock + c] = 4.0f * a1 - 5.0f * a3 + a5;
      }
    }
    for (int64_t p = 0; p < kPositions; ++p) std::copy(columns[p], columns[p] + n, out + p * stride + c0);
  }
}
ONYX_ISA_DISPATCHED(void, transformWindow, (const float* const* window, int64_t channels, float* out, int64_t stride),
                    (window, channels, out, stride))

// One tile's products transformed back, A^T m A, plus bias (null: none): position p's M values are at
// m + p * stride, and output (r, s) of the tile goes to pixels[r * 4 + s] (null outside the image). A^T's rows:
// (1 1 1 1 1 0) (0 1 -1 2 -2 0) (0 1 1 4 4 0) (0 1 -1 8 -8 1).
ONYX_ISA_BODY void transformTileBody(const float* m, int64_t stride, int64_t outputs, const float* bias,
                                     float* const* pixels) {
  alignas(64) float rows[kWindow * kTile][kChannelBlock];  // m A, row by row
  alignas(64) float zero[kChannelBlock] = {};
  for (int64_t o0 = 0; o0 < outputs; o0 += kChannelBlock) {
    const int64_t n = std::min(kChannelBlock, outputs - o0);
    for (int i = 0; i < kWindow; ++i) {
      const float* p = m + i * kWindow * stride + o0;
      float* t = rows[i * kTile];
      for (int64_t c = 0; c < n; ++c) {
        const float a0 = p[c], a1 = p[stride + c], a2 = p[2 * stride + c], a3 = p[3 * stride + c],
                    a4 = p[4 * stride + c], a5 = p[5 * stride + c];
        t[c] = a0 + a1 + a2 + a3 + a4;
        t[kChannelBlock + c] = (a1 - a2) + 2.0f * (a3 - a4);
        t[2 * kChannelBlock + c] = (a1 + a2) + 4.0f * (a3 + a4);
        t[3 * kChannelBlock + c] = (a1 - a2) + 8.0f * (a3 - a4) + a5;
      }
    }
    const float* b = bias ? bias + o0 : zero;
    for (int s = 0; s < kTile; ++s) {
      const float *s0 = rows[s], *s1 = rows[kTile + s], *s2 = rows[2 * kTile + s], *s3 = rows[3 * kTile + s],
                  *s4 = rows[4 * kTile + s], *s5 = rows[5 * kTile + s];
      if (float* y = pixels[s])
        for (int64_t c = 0; c < n; ++c) y[o0 + c] = b[c] + (s0[c] + s1[c] + s2[c] + s3[c] + s4[c]);
      if (float* y = pixels[kTile + s])
        for (int64_t c = 0; c < n; ++c) y[o0 + c] = b[c] + ((s1[c] - s2[c]) + 2.0f * (s3[c] - s4[c]));
      if (float* y = pixels[2 * kTile + s])
        for (int64_t c = 0; c < n; ++c) y[o0 + c] = b[c] + ((s1[c] + s2[c]) + 4.0f * (s3[c] + s4[c]));
      if (float* y = pixels[3 * kTile + s])
        for (int64_t c = 0; c < n; ++c) y[o0 + c] = b[c] + ((s1[c] - s2[c]) + 8.0f * (s3[c] - s4[c]) + s5[c]);
    }
  }
}
ONYX_ISA_DISPATCHED(void, transformTile,
                    (const float* m, int64_t stride, int64_t outputs, const float* bias, float* const* pixels),
                    (m, stride, outputs, bias, pixels))

// G, the weights' transform (6 x 3), for the same points.
constexpr std::array<std::array<double, 3>, kWindow> kG = {{{1.0 / 4, 0, 0},
                                                            {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                                            {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                                            {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                                            {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                                            {0, 0, 1}}};

}  // namespace

bool ConvWinogradF43::applies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                              std::span<const ConvEpilogueStage> stages) {
  if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() != 4 || w.rank() != 4) return false;
  if (x.blocked16() || !ctx.inputIsConstant(1)) return false;
  if (ctx.attrInt("group", 1) != 1 || w.dim(1) != x.dim(1) || w.dim(2) != 3 || w.dim(3) != 3) return false;
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty() && (bias.dtype() != DataType::Float || bias.count() != w.dim(0))) return false;
  for (const ConvEpilogueStage& stage : stages) {
    if (stage.kind != ConvEpilogueKind::AddResidual) continue;
    const TensorValue& r = ctx.epilogueOperand(size_t(stage.residual));
    if (r.dtype() != DataType::Float || r.blocked16()) return false;  // its shape: canFuseEpilogue's
  }
  auto g = windowGeometry(ctx, {x.dim(2), x.dim(3)}, {3, 3}, false);
  if (!g) return false;  // the oneDNN path reports it
  return g->strides[0] == 1 && g->strides[1] == 1 && g->dilations[0] == 1 && g->dilations[1] == 1;
}

void ConvWinogradF43::pack(const TensorValue& w) {
  if (packedFrom_ == w.raw()) return;
  const int64_t M = w.dim(0), C = w.dim(1);
  const int64_t size = contrib::packedPanelFloats(C, M);
  panels_.assign(size_t(kPositions * size), 0.0f);
  // One position at a time, so that the unpacked C x M matrix costs 1/36 of the panels, not as much again.
  std::vector<float> u(size_t(C * M));
  const float* weights = w.data<float>();
  for (int64_t k = 0; k < kWindow; ++k)
    for (int64_t j = 0; j < kWindow; ++j) {
      for (int64_t o = 0; o < M; ++o)
        for (int64_t c = 0; c < C; ++c) {
          const float* g = weights + (o * C + c) * 9;
          double value = 0;  // (G g G^T)[k][j]
          for (int b = 0; b < 3; ++b)
            value += (kG[k][0] * g[b] + kG[k][1] * g[3 + b] + kG[k][2] * g[6 + b]) * kG[j][b];
          u[size_t(c * M + o)] = float(value);
        }
      contrib::packPanels(u.data(), M, C, M, false, panels_.data() + (k * kWindow + j) * size);
    }
  packedFrom_ = w.raw();
}

Expected<void> ConvWinogradF43::run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                    std::span<const ConvEpilogueStage> stages) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), M = w.dim(0);
  auto g = windowGeometry(ctx, {H, W}, {3, 3}, false);
  if (!g) return g.error();
  const int64_t OH = g->outSize[0], OW = g->outSize[1], ph = g->padsBegin[0], pw = g->padsBegin[1];
  auto y = ctx.allocateOutput(0, DataType::Float, {N, M, OH, OW});
  if (!y) return y.error();
  (*y)->setChannelsLast(ctx.outputMayBeChannelsLast());
  pack(w);
  // The transforms read and write channels-last pixels (a plain input or output through the staging's buffers).
  const float* px = staging_.input(x);
  float* py = staging_.output(**y);
  const TensorValue& biasTensor = ctx.input(2);
  const float* bias = biasTensor.empty() ? nullptr : biasTensor.data<float>();
  const contrib::NBitsIsa isa = contrib::nativeNBitsIsa();
  const int64_t panelSize = contrib::packedPanelFloats(C, M);
  const int64_t panels = (M + contrib::kNBitsPanelWidth - 1) / contrib::kNBitsPanelWidth;
  const int64_t tilesH = (OH + kTile - 1) / kTile, tilesW = (OW + kTile - 1) / kTile;
  const int64_t tiles = N * tilesH * tilesW;
  if (tiles == 0) return {};  // no images (or no outputs): nothing to write
  const int64_t chunk = std::clamp<int64_t>(kChunkBytes / (kPositions * (C + M) * int64_t(sizeof(float))), 1, tiles);
  transformed_.resize(size_t(kPositions * chunk * C));
  products_.resize(size_t(kPositions * chunk * M));
  // The epilogue over `count` pixels of one output row from (n, oy, ox), in the stages' order.
  auto epilogue = [&](float* out, int64_t n, int64_t oy, int64_t ox, int64_t count) {
    for (const ConvEpilogueStage& stage : stages) {
      if (stage.kind != ConvEpilogueKind::AddResidual) {
        applyConvEpilogueStage(stage, out, count * M);
        continue;
      }
      const TensorValue& r = ctx.epilogueOperand(size_t(stage.residual));
      if (r.channelsLast()) {
        fastAddInto(out, r.data<float>() + ((n * OH + oy) * OW + ox) * M, count * M);
        continue;
      }
      const float* plain = r.data<float>() + (n * M * OH + oy) * OW + ox;  // channel o at o * OH * OW
      for (int64_t p = 0; p < count; ++p)
        for (int64_t o = 0; o < M; ++o) out[p * M + o] += plain[o * OH * OW + p];
    }
  };
  for (int64_t first = 0; first < tiles; first += chunk) {
    const int64_t count = std::min(chunk, tiles - first);
    ctx.parallelFor(count, 1, [&](int64_t begin, int64_t end) {
      const float* window[kPositions];
      for (int64_t t = begin; t < end; ++t) {
        const int64_t tile = first + t, n = tile / (tilesH * tilesW);
        const int64_t ty = tile / tilesW % tilesH, tx = tile % tilesW;
        for (int64_t i = 0; i < kWindow; ++i)
          for (int64_t j = 0; j < kWindow; ++j) {
            const int64_t iy = ty * kTile - ph + i, ix = tx * kTile - pw + j;
            const bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
            window[i * kWindow + j] = inside ? px + ((n * H + iy) * W + ix) * C : nullptr;
          }
        transformWindow(window, C, transformed_.data() + t * C, count * C);
      }
    });
    ctx.parallelFor(kPositions * panels, 1, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) {
        const int64_t p = job / panels, n0 = job % panels * contrib::kNBitsPanelWidth;
        contrib::multiplyPacked(transformed_.data() + p * count * C, C, count, panels_.data() + p * panelSize + n0 * C,
                                C, std::min(contrib::kNBitsPanelWidth, M - n0),
                                products_.data() + p * count * M + n0, M, isa);
      }
    });
    ctx.parallelFor(count, 1, [&](int64_t begin, int64_t end) {
      float* pixels[kTile * kTile];
      for (int64_t t = begin; t < end; ++t) {
        const int64_t tile = first + t, n = tile / (tilesH * tilesW);
        const int64_t oy0 = tile / tilesW % tilesH * kTile, ox0 = tile % tilesW * kTile;
        const int64_t rows = std::min(kTile, OH - oy0), columns = std::min(kTile, OW - ox0);
        for (int64_t r = 0; r < kTile; ++r)
          for (int64_t s = 0; s < kTile; ++s)
            pixels[r * kTile + s] = r < rows && s < columns ? py + ((n * OH + oy0 + r) * OW + ox0 + s) * M : nullptr;
        transformTile(products_.data() + t * M, count * M, M, bias, pixels);
        if (!stages.empty())
          for (int64_t r = 0; r < rows; ++r) epilogue(pixels[r * kTile], n, oy0 + r, ox0, columns);
      }
    });
  }
  staging_.finish(**y);
  return {};
}

}  // namespace onyx::exec
