#include "exec/cpu/fast_math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#define ONYX_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))

namespace onyx::exec {
namespace {

// Comparisons and plain arithmetic only, so GCC vectorises every loop below in every clone: std::fmin,
// std::fmax and std::nearbyint kept them scalar. Selects written this way also pass NaN through.
inline float clampTo(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

// Round to nearest for |v| < 2^22: adding 1.5 * 2^23 leaves the integer part in the mantissa.
inline float roundNearest(float v) {
  constexpr float kShift = 12582912.0f;
  return (v + kShift) - kShift;
}

// exp(x) by range reduction to r in [-ln2/2, ln2/2] and a degree-6 polynomial; 2^n built in the exponent.
inline float expApprox(float x) {
  x = clampTo(x, -87.3f, 88.3f);
  float n = roundNearest(x * 1.44269504088896341f);
  float r = x - n * 0.693145751953125f;
  r = r - n * 1.428606765330187045e-06f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t bits = (int32_t(n) + 127) << 23;
  return p * std::bit_cast<float>(bits);
}

inline float tanhApprox(float x) {
  float a = std::fabs(x);
  float t = expApprox(-2.0f * a);
  float big = (1.0f - t) / (1.0f + t);
  float x2 = x * x;
  float small = a * (1.0f - x2 * (1.0f / 3.0f - x2 * (2.0f / 15.0f)));  // |x| < 0.02: series
  float v = a < 0.02f ? small : big;
  return std::copysign(v, x);
}

inline float erfApprox(float x) {
  float a = std::fabs(x);
  // Abramowitz & Stegun 7.1.26 for |x| >= 0.5; Taylor series below, where 7.1.26's absolute error would
  // be large relative to erf itself.
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float poly =
      t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  float big = 1.0f - poly * expApprox(-a * a);
  float x2 = a * a;
  float small =
      1.1283791670955126f * a *
      (1.0f + x2 * (-1.0f / 3.0f + x2 * (1.0f / 10.0f + x2 * (-1.0f / 42.0f + x2 * (1.0f / 216.0f)))));
  float v = a < 0.5f ? small : big;
  return std::copysign(v, x);
}

}  // namespace

ONYX_CLONES void fastRelu(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

ONYX_CLONES void fastSigmoid(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expApprox(-x[i]));
}

ONYX_CLONES void fastSilu(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + expApprox(-x[i]));
}

ONYX_CLONES void fastTanh(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = tanhApprox(x[i]);
}

ONYX_CLONES void fastHardSigmoid(const float* x, float* y, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; ++i) y[i] = clampTo(alpha * x[i] + beta, 0.0f, 1.0f);
}

ONYX_CLONES void fastHardSwish(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * clampTo(x[i] * (1.0f / 6.0f) + 0.5f, 0.0f, 1.0f);
}

ONYX_CLONES void fastExp(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = expApprox(x[i]);
}

ONYX_CLONES void fastErf(const float* x, float* y, int64_t n, float, float) {
  for (int64_t i = 0; i < n; ++i) y[i] = erfApprox(x[i]);
}

ONYX_CLONES void fastClip(const float* x, float* y, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) y[i] = clampTo(x[i], lo, hi);
}

ONYX_CLONES void fastMaxInto(float* acc, const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = v[i] > acc[i] ? v[i] : acc[i];
}

ONYX_CLONES void fastAddInto(float* acc, const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += v[i];
}

ONYX_CLONES float fastLayerNormRow(const float* x, float* y, int64_t n, const float* scale, const float* bias,
                                   float eps, float* invStdDev) {
  constexpr int kLanes = 16;
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
  float sum = 0;
  for (; i < n; ++i) sum += x[i];
  for (int j = 0; j < kLanes; ++j) sum += lanes[j];
  const float rough = sum / float(n);
  // Second pass over the centred values (no cancellation between E[x^2] and mean^2); their sum corrects
  // the float mean of rows far from zero.
  float diffs[kLanes] = {}, squares[kLanes] = {};
  for (i = 0; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float d = x[i + j] - rough;
      diffs[j] += d;
      squares[j] += d * d;
    }
  float sd = 0, sq = 0;
  for (; i < n; ++i) {
    const float d = x[i] - rough;
    sd += d;
    sq += d * d;
  }
  for (int j = 0; j < kLanes; ++j) {
    sd += diffs[j];
    sq += squares[j];
  }
  const float shift = sd / float(n);
  const float mean = rough + shift;
  const float var = std::max(0.0f, sq / float(n) - shift * shift);
  const float inv = 1.0f / std::sqrt(var + eps);
  if (bias)
    for (i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i] + bias[i];
  else
    for (i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i];
  *invStdDev = inv;
  return mean;
}

// Sixteen channels at a time kept in a register across the taps (written on GCC vectors: the plain loops
// read and wrote `out` once per tap, and the vectoriser gave up on `out` possibly aliasing `base`).
template <bool IsMax, class Lanes>
inline void windowReduceBlock(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t i) {
  Lanes acc, v;
  std::memcpy(&acc, base + offsets[0] + i, sizeof acc);
  for (int64_t t = 1; t < taps; ++t) {
    std::memcpy(&v, base + offsets[t] + i, sizeof v);
    if constexpr (IsMax)
      acc = v > acc ? v : acc;
    else
      acc += v;
  }
  std::memcpy(out + i, &acc, sizeof acc);
}

template <bool IsMax>
inline void windowReduce(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n) {
  typedef float Lanes16 __attribute__((vector_size(64)));
  typedef float Lanes8 __attribute__((vector_size(32)));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) windowReduceBlock<IsMax, Lanes16>(base, offsets, taps, out, i);
  for (; i + 8 <= n; i += 8) windowReduceBlock<IsMax, Lanes8>(base, offsets, taps, out, i);  // 24 channels
  for (; i < n; ++i) {
    float acc = base[offsets[0] + i];
    for (int64_t t = 1; t < taps; ++t) {
      const float v = base[offsets[t] + i];
      if constexpr (IsMax)
        acc = v > acc ? v : acc;
      else
        acc += v;
    }
    out[i] = acc;
  }
}

ONYX_CLONES void fastWindowMax(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n) {
  windowReduce<true>(base, offsets, taps, out, n);
}

ONYX_CLONES void fastWindowSum(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n) {
  windowReduce<false>(base, offsets, taps, out, n);
}

// Sixteen lanes as one GCC vector: a max reduction that must report NaN is left scalar by the vectoriser,
// so it is written on vectors directly (each clone lowers them to its widest registers).
ONYX_CLONES float fastMax(const float* x, int64_t n) {
  typedef float Lanes __attribute__((vector_size(64)));
  typedef int32_t Masks __attribute__((vector_size(64)));
  constexpr int kLanes = 16;
  Lanes lanes = {};
  lanes -= INFINITY;
  Masks nan = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes v;
    std::memcpy(&v, x + i, sizeof v);
    nan |= v != v;
    lanes = v > lanes ? v : lanes;
  }
  bool anyNan = false;
  float m = -INFINITY;
  for (; i < n; ++i) {
    anyNan |= x[i] != x[i];
    m = x[i] > m ? x[i] : m;
  }
  for (int j = 0; j < kLanes; ++j) {
    anyNan |= nan[j] != 0;
    m = lanes[j] > m ? lanes[j] : m;
  }
  return anyNan ? NAN : m;
}

ONYX_CLONES void fastScale(float* y, int64_t n, float factor) {
  for (int64_t i = 0; i < n; ++i) y[i] *= factor;
}

ONYX_CLONES float fastExpShiftedSum(const float* x, float* y, int64_t n, float shift) {
  constexpr int kLanes = 16;
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      y[i + j] = expApprox(x[i + j] - shift);
      lanes[j] += y[i + j];
    }
  float sum = 0;
  for (; i < n; ++i) {
    y[i] = expApprox(x[i] - shift);
    sum += y[i];
  }
  for (int j = 0; j < kLanes; ++j) sum += lanes[j];
  return sum;
}

}  // namespace onyx::exec
