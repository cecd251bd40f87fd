#pragma once
// The add and mul of scatter reductions (ScatterND, ScatterElements, both kernels of each). Integers wrap, as
// two's complement hardware does, instead of overflowing a signed type (fuzz_run: an int64 "mul" reduction
// under UBSan); the sums go through 64-bit unsigned, since narrower unsigned types would be promoted to int and
// overflow it. Other types compute in their compute type (float for the 16-bit floats).
#include <cstdint>
#include <type_traits>

#include "exec/kernel_util.h"

namespace onyx::exec {

template <class T>
T scatterAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(U(a)) + uint64_t(U(b))));
  } else {
    using Cm = ComputeType<T>;
    return fromCompute<T>(Cm(a) + Cm(b));
  }
}

template <class T>
T scatterMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(U(a)) * uint64_t(U(b))));
  } else {
    using Cm = ComputeType<T>;
    return fromCompute<T>(Cm(a) * Cm(b));
  }
}

}  // namespace onyx::exec
