// MatMul and Gemm reference kernels (plain triple loops with double accumulation): the oracle for the
// oneDNN kernels beside it (matmul_dnnl_cpu.cpp), and the path for integer types.
#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"
#include "ops/math/matmul_dims.h"
#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

Expected<void> matmulReference(KernelContext& ctx) {
  auto as = ctx.requireTensor(0);
  if (!as) return as.error();
  auto bs = ctx.requireTensor(1);
  if (!bs) return bs.error();
  TensorValue a = **as, b = **bs;
  if (a.rank() == 0 || b.rank() == 0) return ctx.error("inputs must not be scalars", 0);
  if (a.dtype() != b.dtype()) return ctx.error("inputs have different element types", 1);
  MatmulDims dims;
  switch (matmulDims(a.dims(), b.dims(), false, false, dims)) {
    case MatmulMismatch::InnerDims:
      return ctx.error("cannot multiply " + (*as)->describe() + " by " + (*bs)->describe(), 1);
    case MatmulMismatch::BatchDims:
      return ctx.error("batch dims of " + (*as)->describe() + " and " + (*bs)->describe() + " do not broadcast",
                       1);
    case MatmulMismatch::None:
      break;
  }
  if (a.rank() == 1) a = a.reshaped(dims.a);
  if (b.rank() == 1) b = b.reshaped(dims.b);
  const int64_t m = dims.m, k = dims.k, n = dims.n;
  const Dims& batch = dims.batch;
  const Dims batchA(dims.a.begin(), dims.a.end() - 2), batchB(dims.b.begin(), dims.b.end() - 2);
  auto y = ctx.allocateOutput(0, a.dtype(), dims.out);
  if (!y) return y.error();
  auto sa = broadcastStrides(batchA, batch), sb = broadcastStrides(batchB, batch);
  int64_t batches = elementCount(batch);
  bool ok = dispatchType<kNumbers>(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<ComputeType<T>>, double, ComputeType<T>>;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = (*y)->template data<T>();
    for (int64_t bi = 0; bi < batches; ++bi) {
      int64_t offA = 0, offB = 0, rest = bi;
      for (size_t d = batch.size(); d-- > 0;) {
        int64_t i = rest % batch[d];
        rest /= batch[d];
        offA += i * sa[d];
        offB += i * sb[d];
      }
      const T* A = pa + offA * m * k;
      const T* B = pb + offB * k * n;
      T* Y = py + bi * m * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          Acc acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc = wrappingAdd(acc, wrappingMul(Acc(ComputeType<T>(A[i * k + p])), Acc(ComputeType<T>(B[p * n + j]))));
          Y[i * n + j] = fromCompute<T>(ComputeType<T>(acc));
        }
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> gemmReference(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  auto [aBound, bBound] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  auto& a = aBound; auto& b = bBound;
  if (a.rank() != 2 || b.rank() != 2)
    return ctx.error("needs 2-D A and B, got " + a.describe() + " and " + b.describe(), 0);
  // B and C are read as A's type (fuzz audit: a float B of a double A was read past its end).
  if (b.dtype() != a.dtype())
    return ctx.error("B " + b.describe() + " must have A's element type " + std::string(dataTypeName(a.dtype())), 1);
  if (!ctx.input(2).empty() && ctx.input(2).dtype() != a.dtype())
    return ctx.error("C " + ctx.input(2).describe() + " must have A's element type " +
                         std::string(dataTypeName(a.dtype())),
                     2);
  bool ta = ctx.attrInt("transA", 0) != 0, tb = ctx.attrInt("transB", 0) != 0;
  double alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
  int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  int64_t k2 = tb ? b.dim(1) : b.dim(0), n = tb ? b.dim(0) : b.dim(1);
  if (k != k2)
    return ctx.error("cannot multiply " + a.describe() + " by " + b.describe() + " (transA " +
                         std::to_string(ta) + ", transB " + std::to_string(tb) + ")",
                     1);
  const TensorValue& c = ctx.input(2);
  Dims outDims = {m, n};
  std::vector<int64_t> cs;
  if (!c.empty()) {
    if (!broadcastShapes({&c.dims(), &outDims}) || *broadcastShapes({&c.dims(), &outDims}) != outDims)
      return ctx.error("C " + c.describe() + " does not broadcast to [" + std::to_string(m) + ", " +
                           std::to_string(n) + "]",
                       2);
    cs = broadcastStrides(c.dims(), outDims);
  }
  auto y = ctx.allocateOutput(0, a.dtype(), outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<ComputeType<T>>, double, ComputeType<T>>;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = (*y)->template data<T>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Acc acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          Acc av = Acc(ComputeType<T>(ta ? pa[p * m + i] : pa[i * k + p]));
          Acc bv = Acc(ComputeType<T>(tb ? pb[j * k + p] : pb[p * n + j]));
          acc = wrappingAdd(acc, wrappingMul(av, bv));  // integer products wrap, as ONNX Runtime's do
        }
        double v = double(acc) * alpha;
        if (!c.empty()) v += beta * c.doubleAt(i * cs[0] + j * cs[1]);
        if constexpr (std::is_integral_v<T>)
          py[i * n + j] = T(saturateToInteger<int64_t>(v));  // alpha may be NaN or 1e30
        else
          py[i * n + j] = fromCompute<T>(ComputeType<T>(v));
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

// From dims only: an input read through a folded Transpose is not made for the profile.
int64_t matmulFlops(const KernelContext& ctx) {
  const Dims a = ctx.inputDims(0), b = ctx.inputDims(1);
  if (a.empty() || b.empty()) return 0;
  int64_t n = b.size() >= 2 ? b.back() : 1;
  return 2 * elementCount(a) * n;
}

void registerMatmulCpuKernels(KernelRegistry& r) {
  KernelDef matmul = kernel("MatMul", matmulReference, 1);
  matmul.flops = matmulFlops;
  r.add(matmul);
  KernelDef gemm = kernel("Gemm", gemmReference, 1);
  gemm.flops = matmulFlops;
  r.add(gemm);
}

}  // namespace onyx::exec
