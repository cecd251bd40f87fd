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

__attribute__((target("avx,f16c"))) void floatsToHalvesF16c(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = Half::fromFloat(src[i]);
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

}  // namespace onyx::exec
