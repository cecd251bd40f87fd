// fast_math.h's functions, each compiled for AVX-512, AVX2+FMA and the x86-64 baseline (the bodies are
// fast_math_kernels.inc) and chosen once per function by cpuIsa(): ONYX_CPU_ISA can force the lower sets on
// any machine, which target_clones (picked by the CPU at load time) could not.
#include "exec/cpu/fast_math.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "exec/cpu/isa_dispatch.h"

ONYX_ISA_TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")
#define ONYX_FAST_MATH_ISA avx512
#define ONYX_FAST_MATH_LEVEL 2
#include "exec/cpu/fast_math_kernels.inc"
#undef ONYX_FAST_MATH_ISA
#undef ONYX_FAST_MATH_LEVEL
ONYX_ISA_TARGET_END

ONYX_ISA_TARGET_BEGIN("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt")
#define ONYX_FAST_MATH_ISA avx2
#define ONYX_FAST_MATH_LEVEL 1
#include "exec/cpu/fast_math_kernels.inc"
#undef ONYX_FAST_MATH_ISA
#undef ONYX_FAST_MATH_LEVEL
ONYX_ISA_TARGET_END

#define ONYX_FAST_MATH_ISA baseline
#define ONYX_FAST_MATH_LEVEL 0
#include "exec/cpu/fast_math_kernels.inc"
#undef ONYX_FAST_MATH_ISA
#undef ONYX_FAST_MATH_LEVEL

namespace onyx::exec {
namespace {

template <class Function>
Function forIsa(Function avx512Version, Function avx2Version, Function baselineVersion) {
  switch (cpuIsa()) {
    case CpuIsa::Avx512:
      return avx512Version;
    case CpuIsa::Avx2:
      return avx2Version;
    case CpuIsa::Baseline:
      break;
  }
  return baselineVersion;
}

}  // namespace

// The version for the configured set, looked up on the first call.
#define ONYX_FAST_MATH_DISPATCH(name)                                             \
  static const auto chosen = forIsa(&avx512::name, &avx2::name, &baseline::name); \
  return chosen

void fastRelu(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastRelu)(x, y, n, a, b);
}
void fastSigmoid(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastSigmoid)(x, y, n, a, b);
}
void fastTanh(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastTanh)(x, y, n, a, b);
}
void fastHardSigmoid(const float* x, float* y, int64_t n, float alpha, float beta) {
  ONYX_FAST_MATH_DISPATCH(fastHardSigmoid)(x, y, n, alpha, beta);
}
void fastHardSwish(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastHardSwish)(x, y, n, a, b);
}
void fastExp(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastExp)(x, y, n, a, b);
}
void fastErf(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastErf)(x, y, n, a, b);
}
void fastGeluErf(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastGeluErf)(x, y, n, a, b);
}
void fastSilu(const float* x, float* y, int64_t n, float a, float b) {
  ONYX_FAST_MATH_DISPATCH(fastSilu)(x, y, n, a, b);
}
void fastClip(const float* x, float* y, int64_t n, float lo, float hi) {
  ONYX_FAST_MATH_DISPATCH(fastClip)(x, y, n, lo, hi);
}
void fastMaxInto(float* acc, const float* v, int64_t n) {
  ONYX_FAST_MATH_DISPATCH(fastMaxInto)(acc, v, n);
}
void fastAddInto(float* acc, const float* v, int64_t n) {
  ONYX_FAST_MATH_DISPATCH(fastAddInto)(acc, v, n);
}
void fastSumPixels(const float* x, int64_t pixels, int64_t channels, float* out) {
  ONYX_FAST_MATH_DISPATCH(fastSumPixels)(x, pixels, channels, out);
}
void fastPoolRowMax(const PoolRow& row) {
  ONYX_FAST_MATH_DISPATCH(fastPoolRowMax)(row);
}
void fastPoolRowSum(const PoolRow& row) {
  ONYX_FAST_MATH_DISPATCH(fastPoolRowSum)(row);
}
void fastGemvPanels(const float* panels, const float* x, int64_t k, int64_t n, float* y) {
  ONYX_FAST_MATH_DISPATCH(fastGemvPanels)(panels, x, k, n, y);
}
void fastArithRows(Arith op, const ArithRows& rows) {
  ONYX_FAST_MATH_DISPATCH(fastArithRows)(op, rows);
}
float fastLayerNormRow(const float* x, float* y, int64_t n, const float* scale, const float* bias, float eps,
                       float* invStdDev) {
  ONYX_FAST_MATH_DISPATCH(fastLayerNormRow)(x, y, n, scale, bias, eps, invStdDev);
}
void fastSoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool logOutput) {
  ONYX_FAST_MATH_DISPATCH(fastSoftmaxRows)(x, y, rows, n, logOutput);
}

}  // namespace onyx::exec
