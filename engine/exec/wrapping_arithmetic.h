#pragma once
// Integer add, multiply and negate that wrap, as two's complement hardware does, instead of overflowing a
// signed type, which is undefined behaviour (fuzz_run under UBSan: an int64 "mul" scatter reduction, an int32
// ReduceSum). They compute in 64-bit unsigned, since narrower unsigned types would be promoted to int and
// overflow it. Other types compute in their compute type (float for the 16-bit floats). Used by the scatter
// reductions (ScatterND, ScatterElements, both kernels of each), the reductions (ReduceSum, Prod, ...), the
// element-wise arithmetic (Add, Sub, Mul, Neg, Abs, Sum, PRelu), CumSum/CumProd and integer products.
#include <cstdint>
#include <type_traits>

#include "exec/kernel_util.h"

namespace onyx::exec {

template <class T>
T wrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(U(a)) + uint64_t(U(b))));
  } else {
    using Cm = ComputeType<T>;
    return fromCompute<T>(Cm(a) + Cm(b));
  }
}

template <class T>
T wrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(U(a)) * uint64_t(U(b))));
  } else {
    using Cm = ComputeType<T>;
    return fromCompute<T>(Cm(a) * Cm(b));
  }
}

template <class T>
T wrappingSub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(U(a)) - uint64_t(U(b))));
  } else {
    using Cm = ComputeType<T>;
    return fromCompute<T>(Cm(a) - Cm(b));
  }
}

// -a; the lowest value of a signed type is its own negation.
template <class T>
T wrappingNeg(T a) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(0) - uint64_t(U(a))));
  } else {
    return fromCompute<T>(-ComputeType<T>(a));
  }
}

}  // namespace onyx::exec
