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
#include "exec/half.h"
#include "exec/thread_pool.h"

namespace onyx::exec::contrib {

ONYX_ISA_TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")
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
inline void widen32(const uint16_t* src, float* dst) {  // 32 float16 values
  for (int i = 0; i < 2; ++i)
    // maskz: GCC 12 warns that the plain form's undefined source "may be used uninitialized".
    _mm512_storeu_ps(dst + 16 * i,
                     _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 16 * i))));
}
#include "ops/contrib/nbits_gemm_kernels.inc"
}  // namespace nbits_avx512
ONYX_ISA_TARGET_END

ONYX_ISA_TARGET_BEGIN("avx2,fma,f16c")  // the AVX2 level has F16C (exec/cpu/cpu_isa.h)
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
inline void widen32(const uint16_t* src, float* dst) {
  for (int i = 0; i < 4; ++i)
    _mm256_storeu_ps(dst + 8 * i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 8 * i))));
}
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
inline void widen32(const uint16_t* src, float* dst) {
  for (int i = 0; i < 32; ++i) dst[i] = Half::toFloat(src[i]);
}
#include "ops/contrib/nbits_gemm_kernels.inc"
}  // namespace nbits_baseline

namespace {

struct NBitsKernels {
  void (*decode)(const NBitsWeights&, int64_t, const float*, const float*, const uint8_t*, uint8_t*, float*);
  void (*decodeHalves)(const uint16_t*, int64_t, int64_t, int64_t, float*);
  void (*multiply)(const float*, int64_t, int64_t, const float*, int64_t, const float*, float*, int64_t, int);
};

NBitsKernels kernelsFor(NBitsIsa isa) {
  switch (isa) {
    case NBitsIsa::Avx512:
      return {nbits_avx512::decodePanel, nbits_avx512::decodeHalfPanel, nbits_avx512::multiplyPanel};
    case NBitsIsa::Avx2:
      return {nbits_avx2::decodePanel, nbits_avx2::decodeHalfPanel, nbits_avx2::multiplyPanel};
    case NBitsIsa::Baseline:
      break;
  }
  return {nbits_baseline::decodePanel, nbits_baseline::decodeHalfPanel, nbits_baseline::multiplyPanel};
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

// A thread's decoded panel, 64-byte aligned so that each of its rows is one or two whole cache lines.
struct PanelBuffer {
  std::vector<float> storage;
  float* panel = nullptr;
  void reserve(int64_t k) {
    storage.resize(size_t(k * kNBitsPanelWidth) + 16);
    panel = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 / sizeof(float);
  }
};

// A thread's buffers for decoding codes: the panel's scales and zero points, a block of it transposed, and
// a block of zero codes.
struct CodeScratch {
  std::vector<float> storage;
  std::vector<uint8_t> byteStorage;
  float* scales = nullptr;
  float* zeros = nullptr;
  uint8_t* bytes = nullptr;
  const uint8_t* zeroBlob = nullptr;
  void reserve(const NBitsShape& s) {
    const size_t blockFloats = size_t(s.blocks() * kNBitsPanelWidth);
    storage.resize(2 * blockFloats);
    scales = storage.data();
    zeros = scales + blockFloats;
    const size_t blobBytes = size_t(s.blockSize * s.bits / 8);
    // Sized once per shape: the last block stays zero (only the transposes write the rest).
    if (byteStorage.size() != blobBytes * (kNBitsPanelWidth + 1)) byteStorage.assign(blobBytes * (kNBitsPanelWidth + 1), 0);
    bytes = byteStorage.data();
    zeroBlob = bytes + blobBytes * kNBitsPanelWidth;
  }
};

// Y = A * W (+ bias) by panels of W that `decode(panel, dst)` writes as k x 32 floats on the thread that
// multiplies them (returning dst), or finds packed already (returning where); tasks are a panel and up to
// kRowsPerTask rows, spread over the pool.
template <class Decode>
void panelProduct(ThreadPool& pool, const float* a, int64_t m, int64_t lda, int64_t k, int64_t n, const float* bias,
                  float* y, int64_t ldy, const NBitsKernels& kernels, const NBitsTileDone& tileDone, Decode decode,
                  int64_t rowsPerTask = kRowsPerTask) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < n; ++j) y[r * ldy + j] = bias ? bias[j] : 0.0f;
    if (tileDone) tileDone(0, m, 0, n);
    return;
  }
  const int64_t panels = (n + kNBitsPanelWidth - 1) / kNBitsPanelWidth;
  // The micro-kernel adds a panel's 32 bias values with vector loads: padded with zeros past n.
  std::vector<float> paddedBias;
  if (bias) {
    paddedBias.assign(size_t(panels * kNBitsPanelWidth), 0.0f);
    std::copy(bias, bias + n, paddedBias.begin());
  }
  const int64_t chunks = (m + rowsPerTask - 1) / rowsPerTask, tasks = panels * chunks;
  pool.parallelFor(tasks, 1, [&](int64_t begin, int64_t end) {
    thread_local PanelBuffer buffer;
    buffer.reserve(k);
    int64_t decoded = -1;
    const float* current = nullptr;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t panel = t / chunks, r0 = t % chunks * rowsPerTask, rows = std::min(rowsPerTask, m - r0);
      if (panel != decoded) {
        current = decode(panel, buffer.panel);
        decoded = panel;
      }
      const int64_t n0 = panel * kNBitsPanelWidth, columns = std::min(kNBitsPanelWidth, n - n0);
      kernels.multiply(a + r0 * lda, lda, rows, current, k, bias ? paddedBias.data() + n0 : nullptr,
                       y + r0 * ldy + n0, ldy, int(columns));
      if (tileDone) tileDone(r0, rows, n0, columns);
    }
  });
}

}  // namespace

void nbitsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const NBitsWeights& w, const float* bias,
               float* y, int64_t ldy, NBitsIsa isa, const NBitsTileDone& tileDone) {
  const NBitsKernels kernels = kernelsFor(isa);
  panelProduct(pool, a, m, lda, w.shape.k, w.shape.n, bias, y, ldy, kernels, tileDone, [&](int64_t panel, float* dst) {
    thread_local CodeScratch scratch;
    scratch.reserve(w.shape);
    gatherPanelScales(w, panel, scratch.scales, scratch.zeros);
    kernels.decode(w, panel, scratch.scales, scratch.zeros, scratch.zeroBlob, scratch.bytes, dst);
    return static_cast<const float*>(dst);
  });
}

void halfWeightsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const uint16_t* w, int64_t k, int64_t n,
                     const float* bias, float* y, int64_t ldy, NBitsIsa isa, const NBitsTileDone& tileDone) {
  const NBitsKernels kernels = kernelsFor(isa);
  panelProduct(pool, a, m, lda, k, n, bias, y, ldy, kernels, tileDone,
               [&](int64_t panel, float* dst) {
                 kernels.decodeHalves(w, k, n, panel, dst);
                 return static_cast<const float*>(dst);
               });
}

void packedPanelsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const float* panels, int64_t k,
                      int64_t n, const float* bias, float* y, int64_t ldy, NBitsIsa isa,
                      const NBitsTileDone& tileDone) {
  // Nothing to decode per task, so rows split finer where panels alone would leave threads idle (bert_small's
  // 256-column products are 8 panels).
  const int64_t panelCount = (n + kNBitsPanelWidth - 1) / kNBitsPanelWidth;
  int64_t rowsPerTask = kRowsPerTask;
  while (rowsPerTask > 24 && panelCount * ((m + rowsPerTask - 1) / rowsPerTask) < 4 * int64_t(pool.threadCount()))
    rowsPerTask /= 2;
  panelProduct(
      pool, a, m, lda, k, n, bias, y, ldy, kernelsFor(isa), tileDone,
      [&](int64_t panel, float*) { return panels + panel * k * kNBitsPanelWidth; }, rowsPerTask);
}

void packPanels(const float* w, int64_t ldw, int64_t k, int64_t n, bool transposed, float* panels, float scale) {
  const int64_t count = (n + kNBitsPanelWidth - 1) / kNBitsPanelWidth;
  for (int64_t p = 0; p < count; ++p) {
    float* panel = panels + p * k * kNBitsPanelWidth;
    const int64_t n0 = p * kNBitsPanelWidth, columns = std::min(kNBitsPanelWidth, n - n0);
    if (columns < kNBitsPanelWidth) std::fill(panel, panel + k * kNBitsPanelWidth, 0.0f);
    if (transposed) {
      for (int64_t c = 0; c < columns; ++c)
        for (int64_t r = 0; r < k; ++r) panel[r * kNBitsPanelWidth + c] = scale * w[(n0 + c) * ldw + r];
    } else {
      for (int64_t r = 0; r < k; ++r)
        for (int64_t c = 0; c < columns; ++c) panel[r * kNBitsPanelWidth + c] = scale * w[r * ldw + n0 + c];
    }
  }
}

void multiplyPacked(const float* a, int64_t lda, int64_t m, const float* panels, int64_t k, int64_t n, float* y,
                    int64_t ldy, NBitsIsa isa) {
  const NBitsKernels kernels = kernelsFor(isa);
  for (int64_t n0 = 0; n0 < n; n0 += kNBitsPanelWidth)
    kernels.multiply(a, lda, m, panels + n0 * k, k, nullptr, y + n0, ldy, int(std::min(kNBitsPanelWidth, n - n0)));
}

}  // namespace onyx::exec::contrib
