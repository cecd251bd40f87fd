#pragma once
// Some of fast_math.h's functions as each instruction set's clone compiles them (fast_math.cpp), for tests
// that compare the clones on one machine. Kernels call fast_math.h's, which run the configured set's.
#include <cstdint>

#include "exec/cpu/fast_math.h"

#define ONYX_FAST_MATH_SET(set)                                                                            \
  namespace onyx::exec::set {                                                                              \
  void fastGeluErf(const float* x, float* y, int64_t n, float, float);                                    \
  void fastSumPixels(const float* x, int64_t pixels, int64_t channels, float* out);                       \
  void fastPoolRowMax(const PoolRow& row);                                                                 \
  void fastPoolRowSum(const PoolRow& row);                                                                 \
  float fastLayerNormRow(const float* x, float* y, int64_t n, const float* scale, const float* bias,      \
                         float eps, float* invStdDev);                                                     \
  void fastSoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool logOutput);                \
  }

ONYX_FAST_MATH_SET(avx512)
ONYX_FAST_MATH_SET(avx2)
ONYX_FAST_MATH_SET(baseline)

#undef ONYX_FAST_MATH_SET
