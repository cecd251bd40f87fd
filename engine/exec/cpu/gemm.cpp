// Row-major sgemm on oneDNN's (exec/cpu/gemm.h).
#include "exec/cpu/gemm.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "exec/cpu/cpu_isa.h"

namespace onyx::exec {

void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  cpuIsa();  // ONYX_CPU_ISA caps oneDNN before its first use
  dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void sgemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // oneDNN sizes its OpenMP teams by the calling thread's max-threads setting.
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  omp_set_num_threads(saved);
}

}  // namespace onyx::exec
