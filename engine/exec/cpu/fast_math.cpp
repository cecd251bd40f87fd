#include "exec/cpu/fast_math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

// Clang (the sanitizer and fuzz builds, packaging/sanitize.sh) rejects an avx512f clone that passes 64-byte
// vectors to the helpers below, compiled without avx512f, as an ABI mismatch (GCC inlines them): its builds
// clone for haswell and the baseline only.
#if defined(__clang__)
#define ONYX_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define ONYX_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#endif

namespace onyx::exec {
namespace {

// Comparisons and plain arithmetic only, so GCC vectorises every loop below in every clone: std::fmin,
// std::fmax and std::nearbyint kept them scalar. Selects written this way also pass NaN through.
inline float clampTo(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

// Round to nearest for |v| < 2^22: adding 1.5 * 2^23 leaves the integer part in the mantissa.
template <typename T>
inline T roundNearest(T v) {
  constexpr float kShift = 12582912.0f;
  return (v + kShift) - kShift;
}

// Sixteen floats as one GCC vector, for loops the vectoriser leaves scalar or half-used (reductions into
// arrays, selects that must pass NaN through): each clone lowers it to its widest registers.
typedef float Lanes16 __attribute__((vector_size(64)));
typedef int32_t Ints16 __attribute__((vector_size(64)));
constexpr int kLanes16 = 16;

inline Lanes16 loadLanes(const float* p) {
  Lanes16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void storeLanes(float* p, Lanes16 v) { std::memcpy(p, &v, sizeof v); }
// Halves added in a tree: a chain of sixteen scalar adds cost more than the loop over a 128-float row.
typedef float Lanes8 __attribute__((vector_size(32)));
typedef float Lanes4 __attribute__((vector_size(16)));
inline float sumLanes(Lanes16 v) {
  Lanes8 low, high;
  std::memcpy(&low, &v, sizeof low);
  std::memcpy(&high, reinterpret_cast<const char*>(&v) + sizeof low, sizeof high);
  const Lanes8 eight = low + high;
  Lanes4 a, b;
  std::memcpy(&a, &eight, sizeof a);
  std::memcpy(&b, reinterpret_cast<const char*>(&eight) + sizeof a, sizeof b);
  const Lanes4 four = a + b;
  return (four[0] + four[2]) + (four[1] + four[3]);
}
inline float maxLanes(Lanes16 v) {
  Lanes8 low, high;
  std::memcpy(&low, &v, sizeof low);
  std::memcpy(&high, reinterpret_cast<const char*>(&v) + sizeof low, sizeof high);
  const Lanes8 eight = low > high ? low : high;
  Lanes4 a, b;
  std::memcpy(&a, &eight, sizeof a);
  std::memcpy(&b, reinterpret_cast<const char*>(&eight) + sizeof a, sizeof b);
  const Lanes4 four = a > b ? a : b;
  const float x = four[0] > four[2] ? four[0] : four[2], y = four[1] > four[3] ? four[1] : four[3];
  return x > y ? x : y;
}

inline Lanes16 clampTo(Lanes16 x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

// 2^n for integral n in the float's exponent range, built in the exponent bits.
inline float pow2(float n) { return std::bit_cast<float>((int32_t(n) + 127) << 23); }
inline Lanes16 pow2(Lanes16 n) { return Lanes16((__builtin_convertvector(n, Ints16) + 127) << 23); }

// exp(x) by range reduction to r in [-ln2/2, ln2/2] and a degree-6 polynomial; for a float or Lanes16.
template <typename T>
inline T expApprox(T x) {
  x = clampTo(x, -87.3f, 88.3f);
  T n = roundNearest(x * 1.44269504088896341f);
  T r = x - n * 0.693145751953125f;
  r = r - n * 1.428606765330187045e-06f;
  T p = r * (1.0f / 720.0f) + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * pow2(n);
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
  Lanes16 lanes = {};
  int64_t i = 0;
  for (; i + kLanes16 <= n; i += kLanes16) lanes += loadLanes(x + i);
  float sum = 0;
  for (; i < n; ++i) sum += x[i];
  sum += sumLanes(lanes);
  const float rough = sum / float(n);
  // Second pass over the centred values (no cancellation between E[x^2] and mean^2); their sum corrects
  // the float mean of rows far from zero.
  Lanes16 diffs = {}, squares = {};
  for (i = 0; i + kLanes16 <= n; i += kLanes16) {
    const Lanes16 d = loadLanes(x + i) - rough;
    diffs += d;
    squares += d * d;
  }
  float sd = 0, sq = 0;
  for (; i < n; ++i) {
    const float d = x[i] - rough;
    sd += d;
    sq += d * d;
  }
  sd += sumLanes(diffs);
  sq += sumLanes(squares);
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
// read and wrote `out` once per tap, and the vectoriser gave up on `out` possibly aliasing the input).
// tap(t) is where tap t's n floats start.
template <bool IsMax, class Lanes, class Tap>
inline void tapsReduceBlock(const Tap& tap, int64_t taps, float* out, int64_t i) {
  Lanes acc, v;
  std::memcpy(&acc, tap(0) + i, sizeof acc);
  for (int64_t t = 1; t < taps; ++t) {
    std::memcpy(&v, tap(t) + i, sizeof v);
    if constexpr (IsMax)
      acc = v > acc ? v : acc;
    else
      acc += v;
  }
  std::memcpy(out + i, &acc, sizeof acc);
}

template <bool IsMax, class Tap>
inline void tapsReduce(const Tap& tap, int64_t taps, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) tapsReduceBlock<IsMax, Lanes16>(tap, taps, out, i);
  for (; i + 8 <= n; i += 8) tapsReduceBlock<IsMax, Lanes8>(tap, taps, out, i);  // 24 channels
  for (; i < n; ++i) {
    float acc = tap(0)[i];
    for (int64_t t = 1; t < taps; ++t) {
      const float v = tap(t)[i];
      if constexpr (IsMax)
        acc = v > acc ? v : acc;
      else
        acc += v;
    }
    out[i] = acc;
  }
}

template <bool IsMax>
inline void windowReduce(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n) {
  tapsReduce<IsMax>([&](int64_t t) { return base + offsets[t]; }, taps, out, n);
}

// Rows reduced element by element into `out` (the vertical pass of separable pooling).
template <bool IsMax>
inline void rowsReduce(const float* const* rows, int64_t count, float* out, int64_t n) {
  tapsReduce<IsMax>([&](int64_t t) { return rows[t]; }, count, out, n);
}

template <bool IsMax>
inline void poolRow(const PoolRow& r) {
  const float* source = r.rows[0];
  if (r.rowCount > 1) {
    rowsReduce<IsMax>(r.rows, r.rowCount, r.scratch, r.rowLength);
    source = r.scratch;
  }
  for (int64_t ow = 0; ow < r.outWidth; ++ow) {
    float* out = r.out + ow * r.outStride;
    if (r.columnCount[ow] == 0) {
      std::fill(out, out + r.channels, 0.0f);
      continue;
    }
    windowReduce<IsMax>(source + r.columnStart[ow], r.tapOffsets, r.columnCount[ow], out, r.channels);
  }
}

ONYX_CLONES void fastPoolRowMax(const PoolRow& row) { poolRow<true>(row); }

ONYX_CLONES void fastPoolRowSum(const PoolRow& row) { poolRow<false>(row); }

// Eight independent sums per panel (four vectors of outputs, even and odd rows apart) keep the adds'
// latency hidden behind the loads.
ONYX_CLONES void fastGemvPanels(const float* panels, const float* x, int64_t k, int64_t n, float* y) {
  static_assert(kGemvPanel == 4 * kLanes16);
  for (int64_t first = 0; first < n; first += kGemvPanel) {
    const float* w = panels + first * k;
    Lanes16 even[4] = {}, odd[4] = {};
    int64_t i = 0;
    for (; i + 1 < k; i += 2, w += 2 * kGemvPanel) {
      const float a = x[i], b = x[i + 1];
      for (int v = 0; v < 4; ++v) {
        even[v] += a * loadLanes(w + v * kLanes16);
        odd[v] += b * loadLanes(w + kGemvPanel + v * kLanes16);
      }
    }
    if (i < k)
      for (int v = 0; v < 4; ++v) even[v] += x[i] * loadLanes(w + v * kLanes16);
    float sums[kGemvPanel];
    for (int v = 0; v < 4; ++v) storeLanes(sums + v * kLanes16, even[v] + odd[v]);
    std::memcpy(y + first, sums, size_t(std::min(kGemvPanel, n - first)) * sizeof(float));
  }
}

ONYX_CLONES void fastWindowMax(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n) {
  windowReduce<true>(base, offsets, taps, out, n);
}

ONYX_CLONES void fastWindowSum(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n) {
  windowReduce<false>(base, offsets, taps, out, n);
}

namespace {

// The largest element, NaN if any is NaN. A max reduction that must report NaN is left scalar by the
// vectoriser, so it is written on vectors directly.
inline float rowMax(const float* x, int64_t n) {
  Lanes16 lanes = {};
  lanes -= INFINITY;
  Ints16 nan = {};
  int64_t i = 0;
  for (; i + kLanes16 <= n; i += kLanes16) {
    const Lanes16 v = loadLanes(x + i);
    nan |= v != v;
    lanes = v > lanes ? v : lanes;
  }
  bool anyNan = false;
  float m = maxLanes(lanes);
  for (; i < n; ++i) {
    anyNan |= x[i] != x[i];
    m = x[i] > m ? x[i] : m;
  }
  for (int j = 0; j < kLanes16; ++j) anyNan |= nan[j] != 0;
  return anyNan ? NAN : m;
}

// y = exp(x - shift); returns the sum of y.
inline float expShiftedSum(const float* x, float* y, int64_t n, float shift) {
  Lanes16 lanes = {};
  int64_t i = 0;
  for (; i + kLanes16 <= n; i += kLanes16) {
    const Lanes16 e = expApprox(loadLanes(x + i) - shift);
    storeLanes(y + i, e);
    lanes += e;
  }
  float sum = sumLanes(lanes);
  for (; i < n; ++i) {
    y[i] = expApprox(x[i] - shift);
    sum += y[i];
  }
  return sum;
}

}  // namespace

// Whole rows per call: the constants of exp stay in registers across rows, and a 128-float row is only
// eight vectors, about the cost of a call.
ONYX_CLONES void fastSoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool logOutput) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * n;
    float* out = y + r * n;
    const float mx = rowMax(in, n);
    const float sum = expShiftedSum(in, out, n, mx);
    if (logOutput) {
      const float shift = mx + std::log(sum);
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] - shift;
    } else {
      const float factor = 1.0f / sum;
      for (int64_t i = 0; i < n; ++i) out[i] *= factor;
    }
  }
}

}  // namespace onyx::exec
