// com.microsoft FusedMatMul: alpha * op(A) * op(B) with op a transpose of the last two dims (transA,
// transB), batch dims broadcasting as in MatMul (ops/math/matmul_dims.h). Each batch's product is one
// sgemm with the transposes folded into its operands; float16/bfloat16 inputs are widened first.
// FusedGemm: Gemm followed by the activation ONNX Runtime fused into it. Both have a fast variant and its
// reference (contrib_math.h).
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"
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

template <bool Fast>
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
    else contribMath<Fast>().gemm(transA, transB, m, n, k, alpha, ap, transA ? m : k, bp, transB ? k : n, 0.0f, yp, n);
  }
  if (a.dtype() != DataType::Float) fromFloats(a.dtype(), yf, (*y)->raw(), batches * m * n);
  return {};
}

// The activation FusedGemm applies after the product (ONNX Runtime fuses Gemm + Relu/LeakyRelu/Tanh/
// Sigmoid/HardSigmoid into it); false for one it does not know.
bool applyActivation(const ContribMath& math, const std::string& name, float alpha, float beta, float* v, int64_t n) {
  if (name.empty()) return true;
  if (name == "Relu") math.relu(v, v, n, 0, 0);
  else if (name == "Tanh") math.tanh(v, v, n, 0, 0);
  else if (name == "Sigmoid") math.sigmoid(v, v, n, 0, 0);
  else if (name == "HardSigmoid") math.hardSigmoid(v, v, n, alpha, beta);
  else if (name == "LeakyRelu") for (int64_t i = 0; i < n; ++i) v[i] = v[i] < 0 ? alpha * v[i] : v[i];
  else return false;
  return true;
}

// FusedGemm: activation(alpha * op(A) * op(B) + beta * C), C broadcasting to [M, N].
template <bool Fast>
Expected<void> runFusedGemm(KernelContext& ctx) {
  const ContribMath& math = contribMath<Fast>();
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [a, b] = *inputs;
  const TensorValue& c = ctx.input(2);
  if (!isFloatStorage(a.dtype()) || b.dtype() != a.dtype() || (!c.empty() && c.dtype() != a.dtype())) return ctx.unsupportedType(0);
  if (a.rank() != 2 || b.rank() != 2) return ctx.error("FusedGemm inputs A and B must be matrices");
  const bool transA = ctx.attrInt("transA", 0) != 0, transB = ctx.attrInt("transB", 0) != 0;
  const int64_t m = transA ? a.dim(1) : a.dim(0), k = transA ? a.dim(0) : a.dim(1), n = transB ? b.dim(0) : b.dim(1);
  if ((transB ? b.dim(1) : b.dim(0)) != k) return ctx.error("cannot multiply " + a.describe() + " by " + b.describe());
  const std::string activation = ctx.attrString("activation", "");
  const float actAlpha = ctx.attrFloat("activation_alpha", activation == "LeakyRelu" ? 0.01f : 0.2f);
  const float actBeta = ctx.attrFloat("activation_beta", 0.5f);
  std::vector<float> probe(1, 0.0f);
  if (!applyActivation(math, activation, actAlpha, actBeta, probe.data(), 1))
    return ctx.error("FusedGemm activation '" + activation + "' is not supported (Relu, LeakyRelu, Tanh, Sigmoid, HardSigmoid)");
  auto y = ctx.allocateOutput(0, a.dtype(), {m, n});
  if (!y) return y.error();
  std::vector<float> aScratch, bScratch, out(size_t(m * n), 0.0f);
  const float* af = floatData(a, aScratch);
  const float* bf = floatData(b, bScratch);
  const float alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
  if (!c.empty()) {
    auto shape = broadcastShapes({&c.dims(), &(*y)->dims()});
    if (!shape || *shape != (*y)->dims()) return ctx.error("C " + c.describe() + " does not broadcast to [M, N]", 2);
    const std::vector<float> cf = floatsOf(c);
    const auto strides = broadcastStrides(c.dims(), (*y)->dims());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) out[size_t(i * n + j)] = beta * cf[size_t(i * strides[0] + j * strides[1])];
  }
  if (m && n && k) math.gemm(transA, transB, m, n, k, alpha, af, transA ? m : k, bf, transB ? k : n, c.empty() ? 0.0f : 1.0f, out.data(), n);
  applyActivation(math, activation, actAlpha, actBeta, out.data(), m * n);
  fromFloats(a.dtype(), out.data(), (*y)->raw(), m * n);
  return {};
}

}  // namespace

void registerFusedMatMulCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "FusedMatMul", runFusedMatMul<false>, runFusedMatMul<true>);
  addMicrosoftKernels(registry, "FusedGemm", runFusedGemm<false>, runFusedGemm<true>);
}

}  // namespace onyx::exec::contrib
