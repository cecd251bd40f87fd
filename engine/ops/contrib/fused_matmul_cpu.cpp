// com.microsoft FusedMatMul: alpha * op(A) * op(B) with op a transpose of the last two dims (transA,
// transB), batch dims broadcasting as in MatMul (ops/math/matmul_dims.h). Each batch's product is one
// oneDNN sgemm with the transposes folded into its operands; float16/bfloat16 inputs are widened first.
#include "exec/cpu/gemm.h"
#include "ops/contrib/contrib_kernels.h"
#include "ops/math/matmul_dims.h"

namespace onyx::exec::contrib {
namespace {

// Offset of batch `index` (row-major over the broadcast batch dims) in an operand with its own batch dims.
int64_t batchOffset(int64_t index, const Dims& batch, const Dims& operand, int64_t matrixSize) {
  const size_t rank = operand.size() - 2, skip = batch.size() - rank;
  int64_t offset = 0, stride = matrixSize;
  for (size_t d = batch.size(); d-- > skip;) {
    const int64_t coordinate = index % batch[d];
    index /= batch[d];
    const int64_t size = operand[d - skip];
    if (size != 1) offset += coordinate * stride;
    stride *= size;
  }
  return offset;
}

Expected<void> runFusedMatMul(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [a, b] = *inputs;
  if (!isFloatStorage(a.dtype())) return ctx.unsupportedType(0);
  if (b.dtype() != a.dtype()) return ctx.unsupportedType(1);
  if (ctx.attrInt("transBatchA", 0) != 0 || ctx.attrInt("transBatchB", 0) != 0)
    return ctx.error("FusedMatMul with transBatchA or transBatchB is not supported");
  if (a.rank() < 1 || b.rank() < 1) return ctx.error("FusedMatMul inputs must not be scalars");
  const bool transA = ctx.attrInt("transA", 0) != 0 && a.rank() > 1, transB = ctx.attrInt("transB", 0) != 0 && b.rank() > 1;
  MatmulDims dims;
  const MatmulMismatch mismatch = matmulDims(a.dims(), b.dims(), transA, transB, dims);
  if (mismatch != MatmulMismatch::None)
    return ctx.error("cannot multiply " + a.describe() + (transA ? " (transposed)" : "") + " by " + b.describe() +
                     (transB ? " (transposed)" : "") + (mismatch == MatmulMismatch::InnerDims ? ": inner dims differ" : ": batch dims do not broadcast"));
  auto y = ctx.allocateOutput(0, a.dtype(), dims.out);
  if (!y) return y.error();
  const int64_t batches = elementCount(dims.batch), m = dims.m, n = dims.n, k = dims.k;
  if (batches == 0 || m == 0 || n == 0) return {};
  std::vector<float> aScratch, bScratch, yScratch;
  const float* af = floatData(a, aScratch);
  const float* bf = floatData(b, bScratch);
  float* yf = a.dtype() == DataType::Float ? (*y)->data<float>() : (yScratch.resize(size_t(batches * m * n)), yScratch.data());
  const float alpha = ctx.attrFloat("alpha", 1.0f);
  for (int64_t i = 0; i < batches; ++i) {
    const float* ap = af + batchOffset(i, dims.batch, dims.a, m * k);
    const float* bp = bf + batchOffset(i, dims.batch, dims.b, k * n);
    float* yp = yf + i * m * n;
    if (k == 0) std::fill(yp, yp + m * n, 0.0f);
    else sgemm(transA, transB, m, n, k, alpha, ap, transA ? m : k, bp, transB ? k : n, 0.0f, yp, n);
  }
  if (a.dtype() != DataType::Float) fromFloats(a.dtype(), yf, (*y)->raw(), batches * m * n);
  return {};
}

int64_t fusedMatMulFlops(const KernelContext& ctx) {
  const TensorValue& a = ctx.input(0);
  if (a.rank() < 1) return 0;
  const int64_t k = ctx.attrInt("transA", 0) != 0 && a.rank() > 1 ? a.dim(a.rank() - 2) : a.dim(a.rank() - 1);
  return k > 0 ? 2 * a.count() / k * k * (ctx.input(1).count() / std::max<int64_t>(k, 1)) : 0;
}

}  // namespace

void registerFusedMatMulCpuKernels(KernelRegistry& registry) {
  KernelDef def = microsoftKernel("FusedMatMul", runFusedMatMul);
  def.flops = fusedMatMulFlops;
  registry.add(std::move(def));
}

}  // namespace onyx::exec::contrib
