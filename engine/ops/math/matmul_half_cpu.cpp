// MatMul and Gemm (ai.onnx) with float16 or bfloat16 weights, as ONNX Runtime's float16 converter leaves
// them: float32 arithmetic on 16-bit storage, the weight widened one 64-column panel at a time inside the
// product (gemmWeights) instead of the reference kernel's element-by-element loops or a float32 copy of
// every weight at load. Chosen only when the weight's stored type is known to be 16-bit (an initializer or a
// typed value); anything else it meets goes to the reference kernel. The panel product and the float16
// conversions are the contrib family's (ops/contrib/contrib_kernels.h), shared with MatMulNBits.
#include "ops/contrib/contrib_kernels.h"

namespace onyx::exec {
namespace {

using contrib::floatData;
using contrib::floatsOf;
using contrib::fromFloats;
using contrib::gemmWeights;

bool halfWeights(const Node& node, int) {
  const Value* b = node.input(1);
  if (!b || !b->type().isTensor()) return false;
  const DataType t = b->type().elemType();
  return t == DataType::Float16 || t == DataType::BFloat16;
}

bool halfPair(const TensorValue& a, const TensorValue& b) {
  return a.dtype() == b.dtype() && (a.dtype() == DataType::Float16 || a.dtype() == DataType::BFloat16) && b.rank() == 2;
}

Expected<void> runHalfMatMul(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [a, b] = *inputs;
  if (!halfPair(a, b) || a.rank() < 2 || a.dim(a.rank() - 1) != b.dim(0)) return runReferenceKernel(ctx);
  Dims outDims = a.dims();
  outDims.back() = b.dim(1);
  auto y = ctx.allocateOutput(0, a.dtype(), outDims);
  if (!y) return y.error();
  const int64_t k = b.dim(0), n = b.dim(1), m = k ? a.count() / k : 0;
  std::vector<float> aScratch, out(size_t(m * n));
  const float* af = floatData(a, aScratch);
  gemmWeights(ctx, af, m, k, b, false, nullptr, out.data(), n);
  fromFloats(a.dtype(), out.data(), (*y)->raw(), m * n);
  return {};
}

// Y = alpha * op(A) * op(B) + beta * C, C broadcasting to [M, N].
Expected<void> runHalfGemm(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [a, b] = *inputs;
  const TensorValue& c = ctx.input(2);
  const bool transA = ctx.attrInt("transA", 0) != 0, transB = ctx.attrInt("transB", 0) != 0;
  if (!halfPair(a, b) || a.rank() != 2 || (!c.empty() && (c.dtype() != a.dtype() || c.rank() > 2))) return runReferenceKernel(ctx);
  const int64_t m = transA ? a.dim(1) : a.dim(0), k = transA ? a.dim(0) : a.dim(1);
  const int64_t n = transB ? b.dim(0) : b.dim(1);
  if ((transB ? b.dim(1) : b.dim(0)) != k) return runReferenceKernel(ctx);
  auto y = ctx.allocateOutput(0, a.dtype(), {m, n});
  if (!y) return y.error();
  std::vector<float> aScratch, out(size_t(m * n));
  const float* af = floatData(a, aScratch);
  std::vector<float> transposed;
  if (transA) {
    transposed.resize(size_t(m * k));
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < m; ++j) transposed[size_t(j * k + i)] = af[i * m + j];
    af = transposed.data();
  }
  gemmWeights(ctx, af, m, k, b, transB, nullptr, out.data(), n);
  const float alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
  if (!c.empty()) {
    auto shape = broadcastShapes({&c.dims(), &(*y)->dims()});
    if (!shape || *shape != (*y)->dims()) return ctx.error("C " + c.describe() + " does not broadcast to [M, N]", 2);
    const std::vector<float> cf = floatsOf(c);
    const auto strides = broadcastStrides(c.dims(), (*y)->dims());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        out[size_t(i * n + j)] = alpha * out[size_t(i * n + j)] + beta * cf[size_t(i * strides[0] + j * strides[1])];
  } else if (alpha != 1.0f) {
    for (float& v : out) v *= alpha;
  }
  fromFloats(a.dtype(), out.data(), (*y)->raw(), m * n);
  return {};
}

int64_t halfProductFlops(const KernelContext& ctx) {
  const TensorValue& b = ctx.input(1);
  if (b.rank() != 2) return 0;
  const bool transB = ctx.node().opType() == "Gemm" && ctx.attrInt("transB", 0) != 0;
  const int64_t k = transB ? b.dim(1) : b.dim(0), n = transB ? b.dim(0) : b.dim(1);
  return k ? 2 * ctx.input(0).count() * n : 0;
}

}  // namespace

void registerHalfMatMulCpuKernels(KernelRegistry& registry) {
  for (auto [op, function] : {std::pair<const char*, KernelFunction>{"MatMul", runHalfMatMul}, {"Gemm", runHalfGemm}}) {
    KernelDef def = kernel(op, function, 1);
    def.variant = "f16";
    def.isaDispatched = true;
    def.priority = 25;  // above oneDNN's (20), which takes only float32
    def.supports = halfWeights;
    def.flops = halfProductFlops;
    registry.add(std::move(def));
  }
}

}  // namespace onyx::exec
