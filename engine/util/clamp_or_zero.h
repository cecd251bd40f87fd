#pragma once
// std::clamp for a value about to become an integer: NaN (from a zero or NaN scale, or a NaN input) becomes 0
// clamped into [lo, hi]. std::clamp passes NaN through, and converting NaN, or any value outside the
// integer's range, to an integer is undefined behaviour (found by fuzz_run under UBSan in QLinearMatMul).
#include <algorithm>
#include <cmath>

namespace onyx {

template <class T>
T clampOrZero(T v, T lo, T hi) {
  return std::isnan(v) ? std::clamp(T(0), lo, hi) : std::clamp(v, lo, hi);
}

}  // namespace onyx
