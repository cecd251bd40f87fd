#include "ops/math/matmul_dims.h"

#include "exec/kernel_util.h"

namespace onyx::exec {

MatmulMismatch matmulDims(const Dims& a, const Dims& b, bool transA, bool transB, MatmulDims& dims) {
  dims.a = a.size() == 1 ? Dims{1, a[0]} : a;
  dims.b = b.size() == 1 ? Dims{b[0], 1} : b;
  const size_t ra = dims.a.size(), rb = dims.b.size();
  dims.m = transA ? dims.a[ra - 1] : dims.a[ra - 2];
  dims.k = transA ? dims.a[ra - 2] : dims.a[ra - 1];
  const int64_t kb = transB ? dims.b[rb - 1] : dims.b[rb - 2];
  dims.n = transB ? dims.b[rb - 2] : dims.b[rb - 1];
  if (dims.k != kb) return MatmulMismatch::InnerDims;
  const Dims batchA(dims.a.begin(), dims.a.end() - 2), batchB(dims.b.begin(), dims.b.end() - 2);
  auto batch = broadcastShapes({&batchA, &batchB});
  if (!batch) return MatmulMismatch::BatchDims;
  dims.batch = *batch;
  dims.out = *batch;
  if (a.size() != 1) dims.out.push_back(dims.m);
  if (b.size() != 1) dims.out.push_back(dims.n);
  return MatmulMismatch::None;
}

}  // namespace onyx::exec
