// MatMulNBits' product by panels (nbits_gemm.h): the per-instruction-set copies of the
// decode and micro-kernel (nbits_gemm_kernels.inc) and the split of panels over threads.
#include "ops/contrib/nbits_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#include "exec/cpu/isa_dispatch.h"
#include "exec/thread_pool.h"

namespace onyx::exec::contrib {

ONYX_ISA_TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")
namespace nbits_avx512 {
using Vec = __m512;
constexpr int kLanes = 16;
constexpr int kTileRows = 12;  // 24 sums, two weight vectors and a broadcast in 32 registers
inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float* p) { return _mm512_loadu_ps(p); }
inline void vstore(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec vbroadcast(float x) { return _mm512_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
#include "ops/contrib/nbits_gemm_kernels.inc"
}  // namespace nbits_avx512
ONYX_ISA_TARGET_END

ONYX_ISA_TARGET_BEGIN("avx2,fma")
namespace nbits_avx2 {
using Vec = __m256;
constexpr int kLanes = 8;
constexpr int kTileRows = 6;  // 12 sums, two weight vectors and a broadcast in 16 registers
inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float* p) { return _mm256_loadu_ps(p); }
inline void vstore(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec vbroadcast(float x) { return _mm256_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
#include "ops/contrib/nbits_gemm_kernels.inc"
}  // namespace nbits_avx2
ONYX_ISA_TARGET_END

namespace nbits_baseline {
using Vec = __m128;
constexpr int kLanes = 4;
constexpr int kTileRows = 4;
inline Vec vzero() { return _mm_setzero_ps(); }
inline Vec vload(const float* p) { return _mm_loadu_ps(p); }
inline void vstore(float* p, Vec v) { _mm_storeu_ps(p, v); }
inline Vec vbroadcast(float x) { return _mm_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
inline Vec vadd(Vec a, Vec b) { return _mm_add_ps(a, b); }
#include "ops/contrib/nbits_gemm_kernels.inc"
}  // namespace nbits_baseline

namespace {

struct NBitsKernels {
  void (*decode)(const NBitsWeights&, int64_t, const float*, const float*, const uint8_t*, uint8_t*, float*);
  void (*multiply)(const float*, int64_t, int64_t, const float*, int64_t, const float*, float*, int64_t, int);
};

NBitsKernels kernelsFor(NBitsIsa isa) {
  switch (isa) {
    case NBitsIsa::Avx512:
      return {nbits_avx512::decodePanel, nbits_avx512::multiplyPanel};
    case NBitsIsa::Avx2:
      return {nbits_avx2::decodePanel, nbits_avx2::multiplyPanel};
    case NBitsIsa::Baseline:
      break;
  }
  return {nbits_baseline::decodePanel, nbits_baseline::multiplyPanel};
}

// Rows of A per task: each task decodes its panel once for them; more rows than this are split so that a
// task's rows of A stay in cache while the panel sweeps them.
constexpr int64_t kRowsPerTask = 256;

}  // namespace

NBitsIsa nativeNBitsIsa() {
  // Follows ONYX_CPU_ISA (exec/cpu/cpu_isa.h), so a forced AVX2 run takes the AVX2 micro-kernel too.
  switch (cpuIsa()) {
    case CpuIsa::Avx512:
      return NBitsIsa::Avx512;
    case CpuIsa::Avx2:
      return NBitsIsa::Avx2;
    case CpuIsa::Baseline:
      break;
  }
  return NBitsIsa::Baseline;
}

namespace {

// One panel's scales and zero points, blocks x 32, gathered from their n x blocks tensors (zero past n,
// so the padding columns decode to 0).
void gatherPanelScales(const NBitsWeights& w, int64_t panel, float* scales, float* zeros) {
  const int64_t blocks = w.shape.blocks(), n0 = panel * kNBitsPanelWidth;
  const int64_t columns = std::min(kNBitsPanelWidth, w.shape.n - n0);
  const float defaultZero = float(1 << (w.shape.bits - 1));
  std::fill(scales, scales + blocks * kNBitsPanelWidth, 0.0f);
  std::fill(zeros, zeros + blocks * kNBitsPanelWidth, defaultZero);
  for (int64_t c = 0; c < columns; ++c)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      scales[blk * kNBitsPanelWidth + c] = w.scales[(n0 + c) * blocks + blk];
      if (w.zeros) zeros[blk * kNBitsPanelWidth + c] = w.zeros[(n0 + c) * blocks + blk];
    }
}

// A thread's buffers: the decoded panel (64-byte aligned, so that each of its rows is one or two whole
// cache lines), the panel's scales and zero points, a block of it transposed, and a block of zero codes.
struct PanelScratch {
  std::vector<float> storage;
  std::vector<uint8_t> byteStorage;
  float* panel = nullptr;
  float* scales = nullptr;
  float* zeros = nullptr;
  uint8_t* bytes = nullptr;
  const uint8_t* zeroBlob = nullptr;
  void reserve(const NBitsShape& s) {
    const size_t panelFloats = size_t(s.k * kNBitsPanelWidth), blockFloats = size_t(s.blocks() * kNBitsPanelWidth);
    storage.resize(panelFloats + 2 * blockFloats + 16);
    panel = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 / sizeof(float);
    scales = panel + panelFloats;
    zeros = scales + blockFloats;
    const size_t blobBytes = size_t(s.blockSize * s.bits / 8);
    byteStorage.assign(blobBytes * (kNBitsPanelWidth + 1), 0);
    bytes = byteStorage.data();
    zeroBlob = bytes + blobBytes * kNBitsPanelWidth;
  }
};

}  // namespace

void nbitsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const NBitsWeights& w, const float* bias,
               float* y, int64_t ldy, NBitsIsa isa, const NBitsTileDone& tileDone) {
  const NBitsShape& s = w.shape;
  if (m == 0 || s.n == 0) return;
  if (s.k == 0) {
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < s.n; ++j) y[r * ldy + j] = bias ? bias[j] : 0.0f;
    if (tileDone) tileDone(0, m, 0, s.n);
    return;
  }
  const int64_t panels = (s.n + kNBitsPanelWidth - 1) / kNBitsPanelWidth;
  // The micro-kernel adds a panel's 32 bias values with vector loads: padded with zeros past n.
  std::vector<float> paddedBias;
  if (bias) {
    paddedBias.assign(size_t(panels * kNBitsPanelWidth), 0.0f);
    std::copy(bias, bias + s.n, paddedBias.begin());
  }
  const NBitsKernels kernels = kernelsFor(isa);
  const int64_t chunks = (m + kRowsPerTask - 1) / kRowsPerTask, tasks = panels * chunks;
  pool.parallelFor(tasks, 1, [&](int64_t begin, int64_t end) {
    thread_local PanelScratch scratch;
    scratch.reserve(s);
    int64_t decoded = -1;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t panel = t / chunks, r0 = t % chunks * kRowsPerTask, rows = std::min(kRowsPerTask, m - r0);
      if (panel != decoded) {
        gatherPanelScales(w, panel, scratch.scales, scratch.zeros);
        kernels.decode(w, panel, scratch.scales, scratch.zeros, scratch.zeroBlob, scratch.bytes, scratch.panel);
        decoded = panel;
      }
      const int64_t n0 = panel * kNBitsPanelWidth, columns = std::min(kNBitsPanelWidth, s.n - n0);
      kernels.multiply(a + r0 * lda, lda, rows, scratch.panel, s.k, bias ? paddedBias.data() + n0 : nullptr,
                       y + r0 * ldy + n0, ldy, int(columns));
      if (tileDone) tileDone(r0, rows, n0, columns);
    }
  });
}

}  // namespace onyx::exec::contrib
