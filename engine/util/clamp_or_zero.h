#pragma once
// For a value about to become an integer. Converting NaN, or any value outside the integer's range, to an
// integer is undefined behaviour (found by fuzz_run under UBSan in QLinearMatMul and in int8 ReduceLogSum).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace onyx {

// std::clamp, but NaN (from a zero or NaN scale, or a NaN input) becomes 0 clamped into [lo, hi]. std::clamp
// passes NaN through.
template <class T>
T clampOrZero(T v, T lo, T hi) {
  return std::isnan(v) ? std::clamp(T(0), lo, hi) : std::clamp(v, lo, hi);
}

// v as the integer type I: truncated toward zero, as a cast does, where a cast is defined; NaN is 0, and
// values past I's range, infinities included, saturate to its lowest or max.
template <class I>
I saturateToInteger(double v) {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>);
  using Limits = std::numeric_limits<I>;
  if (std::isnan(v)) return I(0);
  if (v <= double(Limits::lowest())) return Limits::lowest();
  // 2^digits, the first integer past max, is exact in a double; max itself may not be (int64).
  if (v >= std::ldexp(1.0, Limits::digits)) return Limits::max();
  return static_cast<I>(v);
}

}  // namespace onyx
