// Det: determinant of each trailing [n, n] matrix, by LU decomposition with partial pivoting in double.
#include <cmath>
#include <utility>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

double determinant(std::vector<double>& a, int64_t n) {
  double det = 1.0;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    if (a[pivot * n + col] == 0.0) return 0.0;
    if (pivot != col) {
      for (int64_t c = 0; c < n; ++c) std::swap(a[pivot * n + c], a[col * n + c]);
      det = -det;
    }
    double diag = a[col * n + col];
    det *= diag;
    for (int64_t r = col + 1; r < n; ++r) {
      double factor = a[r * n + col] / diag;
      for (int64_t c = col + 1; c < n; ++c) a[r * n + c] -= factor * a[col * n + c];
    }
  }
  return det;
}

Expected<void> detKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() < 2 || in.dim(in.rank() - 1) != in.dim(in.rank() - 2))
    return ctx.error("needs square matrices in the last two dimensions, got " + in.describe(), 0);
  int64_t n = in.dim(in.rank() - 1);
  std::vector<int64_t> outDims(in.dims().begin(), in.dims().end() - 2);
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t batches = (*y)->count();
  bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    std::vector<double> matrix(static_cast<size_t>(n * n));
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < n * n; ++i) matrix[static_cast<size_t>(i)] = double(C(src[b * n * n + i]));
      dst[b] = fromCompute<T>(C(determinant(matrix, n)));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerLinalgCpuKernels(KernelRegistry& r) {
  r.add(kernel("Det", detKernel, 11));
}

}  // namespace onyx::exec
