// MatMul and Gemm (ai.onnx) with float16 or bfloat16 weights, as ONNX Runtime's float16 converter leaves
// them: float32 arithmetic on 16-bit storage, the weight widened one 64-column panel at a time inside the
// product (gemmWeights) instead of the reference kernel's element-by-element loops or a float32 copy of
// every weight at load. Chosen only when the weight's stored type is known to be 16-bit (an initializer or a
// typed value); anything else it meets goes to the reference kernel. The panel product and the float16
// conversions are the contrib family's (ops/contrib/contrib_kernels.h), shared with MatMulNBits.
#include <cstring>

#include "exec/cpu/half_convert.h"
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/nbits_gemm.h"

namespace onyx::exec {
namespace {

using contrib::floatData;
using contrib::floatsOf;
using contrib::fromFloats;
using contrib::gemmPanelsTo;
using contrib::halfWeightsGemm;
using contrib::KeptFloats;
using contrib::sixteenBitPanels;

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
  if (k == 0) {  // sums of nothing: zeros (the panels below would write no row)
    if ((*y)->byteSize()) std::memset((*y)->raw(), 0, (*y)->byteSize());
    return {};
  }
  thread_local std::vector<float> aKept;
  KeptFloats aScratch(aKept);
  const float* af = floatData(ctx, a, aScratch.vector());
  const DataType dtype = a.dtype();
  auto* y16 = static_cast<uint16_t*>((*y)->raw());
  if (dtype == DataType::Float16) {
    thread_local std::vector<float> productKept;
    KeptFloats productLease(productKept);
    float* product = productLease.resize(size_t(m * n));
    halfWeightsGemm(ctx.pool(), af, m, k, static_cast<const uint16_t*>(b.raw()), k, n, nullptr, product, n,
                    contrib::nativeNBitsIsa(), [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
                      floatRowsToHalves(product + r0 * n + c0, n, y16 + r0 * n + c0, n, rows, cols);
                    });
    return {};
  }
  // Each panel goes to 16 bits while it is in cache, on the thread that computed it.
  gemmPanelsTo(ctx, af, m, k, sixteenBitPanels(b, false), [&](int64_t n0, int64_t n1, float* panel) {
    const int64_t width = n1 - n0;
    for (int64_t r = 0; r < m; ++r) fromFloats(dtype, panel + r * width, y16 + r * n + n0, width);
  });
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
  std::vector<float> cf;
  std::vector<int64_t> cStrides = {0, 0};
  if (!c.empty()) {
    const Dims out = {m, n};
    auto shape = broadcastShapes({&c.dims(), &out});
    if (!shape || *shape != out) return ctx.error("C " + c.describe() + " does not broadcast to [M, N]", 2);
    cf = floatsOf(c);
    cStrides = broadcastStrides(c.dims(), out);
  }
  auto y = ctx.allocateOutput(0, a.dtype(), {m, n});
  if (!y) return y.error();
  thread_local std::vector<float> aKept;
  KeptFloats aScratch(aKept);
  const float* af = floatData(ctx, a, aScratch.vector());
  std::vector<float> transposed;
  if (transA) {
    transposed.resize(size_t(m * k));
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < m; ++j) transposed[size_t(j * k + i)] = af[i * m + j];
    af = transposed.data();
  }
  const float alpha = ctx.attrFloat("alpha", 1.0f), beta = ctx.attrFloat("beta", 1.0f);
  const DataType dtype = a.dtype();
  auto* y16 = static_cast<uint16_t*>((*y)->raw());
  // alpha, beta * C and the conversion to 16 bits on each part of Y while it is in cache, on the thread that
  // computed it (they were three single-threaded passes over Y): row r, columns [n0, n0 + width).
  auto finishRow = [&](float* row, int64_t r, int64_t n0, int64_t width) {
    if (!cf.empty()) {
      const float* cRow = cf.data() + r * cStrides[0] + n0 * cStrides[1];
      if (cStrides[1] == 1) {
        for (int64_t j = 0; j < width; ++j) row[j] = alpha * row[j] + beta * cRow[j];
      } else {
        const float scalar = beta * cRow[0];
        for (int64_t j = 0; j < width; ++j) row[j] = alpha * row[j] + scalar;
      }
    } else if (alpha != 1.0f) {
      for (int64_t j = 0; j < width; ++j) row[j] *= alpha;
    }
    fromFloats(dtype, row, y16 + r * n + n0, width);
  };
  if (dtype == DataType::Float16 && !transB) {
    thread_local std::vector<float> productKept;
    KeptFloats productLease(productKept);
    float* product = productLease.resize(size_t(m * n));
    // C as a bias row (a MatMul + Add that ONNX Runtime fused into Gemm): the micro-kernel adds it in its
    // registers, and the tiles only go to 16 bits.
    const bool biasRow = !cf.empty() && cStrides[0] == 0 && cStrides[1] == 1 && alpha == 1.0f && beta == 1.0f;
    halfWeightsGemm(ctx.pool(), af, m, k, static_cast<const uint16_t*>(b.raw()), k, n, biasRow ? cf.data() : nullptr,
                    product, n, contrib::nativeNBitsIsa(), [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
                      if (biasRow) {
                        floatRowsToHalves(product + r0 * n + c0, n, y16 + r0 * n + c0, n, rows, cols);
                        return;
                      }
                      for (int64_t r = r0; r < r0 + rows; ++r) finishRow(product + r * n + c0, r, c0, cols);
                    });
    return {};
  }
  gemmPanelsTo(ctx, af, m, k, sixteenBitPanels(b, transB), [&](int64_t n0, int64_t n1, float* panel) {
    for (int64_t r = 0; r < m; ++r) finishRow(panel + r * (n1 - n0), r, n0, n1 - n0);
  });
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
