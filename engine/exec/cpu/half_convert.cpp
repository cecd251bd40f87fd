#include "exec/cpu/half_convert.h"

#include <immintrin.h>

#include "exec/cpu/cpu_isa.h"
#include "exec/half.h"

namespace onyx::exec {
namespace {

__attribute__((target("avx,f16c"))) void halvesToFloatsF16c(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = Half::toFloat(src[i]);
}

__attribute__((target("avx,f16c"))) inline void floatsToHalvesRow(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = Half::fromFloat(src[i]);
}

__attribute__((target("avx,f16c"))) void floatsToHalvesF16c(const float* src, uint16_t* dst, int64_t n) {
  floatsToHalvesRow(src, dst, n);
}

__attribute__((target("avx,f16c"))) void floatRowsToHalvesF16c(const float* src, int64_t srcStride, uint16_t* dst,
                                                               int64_t dstStride, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) floatsToHalvesRow(src + r * srcStride, dst + r * dstStride, n);
}

bool hasF16c() { return cpuIsa() != CpuIsa::Baseline; }

}  // namespace

void halvesToFloats(const uint16_t* src, float* dst, int64_t n) {
  if (hasF16c()) return halvesToFloatsF16c(src, dst, n);
  for (int64_t i = 0; i < n; ++i) dst[i] = Half::toFloat(src[i]);
}

void floatsToHalves(const float* src, uint16_t* dst, int64_t n) {
  if (hasF16c()) return floatsToHalvesF16c(src, dst, n);
  for (int64_t i = 0; i < n; ++i) dst[i] = Half::fromFloat(src[i]);
}

void floatRowsToHalves(const float* src, int64_t srcStride, uint16_t* dst, int64_t dstStride, int64_t rows, int64_t n) {
  if (hasF16c()) return floatRowsToHalvesF16c(src, srcStride, dst, dstStride, rows, n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i) dst[r * dstStride + i] = Half::fromFloat(src[r * srcStride + i]);
}

}  // namespace onyx::exec
