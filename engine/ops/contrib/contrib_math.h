#pragma once
// The arithmetic of the com.microsoft float kernels, in two sets: the per-instruction-set loops of exec/cpu
// (fast_math.h, the sgemm and panel products) for the "fast" variant each op registers, and plain scalar
// loops in double for its "reference" variant, the oracle the fast one is tested against. A kernel is
// written once, as a template on the set (contribMath<Fast>()), so both variants check the same inputs
// and differ only in how they compute.
#include <cstdint>
#include <source_location>
#include <string>

#include "exec/kernel.h"

namespace onyx::exec::contrib {

using RowFunction = void (*)(const float* x, float* y, int64_t n, float alpha, float beta);
using ProductFunction = void (*)(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha,
                                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                                 int64_t ldc);

struct ContribMath {
  RowFunction relu, sigmoid, tanh, hardSigmoid, clip, geluErf;
  void (*addInto)(float* acc, const float* v, int64_t n);
  void (*softmaxRows)(const float* x, float* y, int64_t rows, int64_t n, bool logOutput);
  // As fastLayerNormRow: returns the mean, writes 1 / sqrt(var + eps) to invStdDev.
  float (*layerNormRow)(const float* x, float* y, int64_t n, const float* scale, const float* bias, float eps,
                        float* invStdDev);
  ProductFunction gemm;        // C = alpha op(A) op(B) + beta C, on the pool's threads where fast
  ProductFunction gemmSerial;  // the same on the calling thread
};

const ContribMath& fastContribMath();
const ContribMath& referenceContribMath();
template <bool Fast>
const ContribMath& contribMath() {
  return Fast ? fastContribMath() : referenceContribMath();
}

// Registers `op` twice in the com.microsoft domain: `reference` as the oracle and `fast` as variant "fast"
// (preferred; profiles name the instruction set it ran on, "fast:avx2"). Both record the caller's file.
void addMicrosoftKernels(KernelRegistry& registry, const std::string& op, KernelFunction reference,
                         KernelFunction fast, std::source_location where = std::source_location::current());

}  // namespace onyx::exec::contrib
