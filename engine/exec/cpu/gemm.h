#pragma once
// Row-major single-precision GEMM for kernels that are not oneDNN primitives (recurrent cells):
// C[m, n] = alpha * op(A)[m, k] * op(B)[k, n] + beta * C. Runs on oneDNN's sgemm (gemm.cpp).
#include <cstdint>

namespace onyx::exec {

void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// The same on the calling thread only: for the many small products of a recurrence, where waking the
// other threads for each costs more than the product.
void sgemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace onyx::exec
