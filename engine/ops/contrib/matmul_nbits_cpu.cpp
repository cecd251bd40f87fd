// com.microsoft MatMulNBits: Y = A * dequantize(B)^T (+ bias), B quantized block-wise along K to 2, 4 or 8
// bits. Dequantization: (q - zero_point) * scale per block, the zero point from packed uint8, from A's
// float type, or 2^(bits - 1) when absent; g_idx maps each row k to its block. Two kernels read the weights
// where they lie, so a 4-bit model's resident size stays about its file size: the reference decodes 64
// output columns at a time into a float buffer and multiplies there (gemmPanels); the "panels" kernel,
// which runs, decodes 32 columns at a time with vector code into a buffer in cache and multiplies it with
// its own register-tiled micro-kernel (nbits_gemm.h).
#include <cstring>

#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/nbits_gemm.h"
#include "ops/math/matmul_epilogue_cpu.h"
#include "util/limits.h"

namespace onyx::exec::contrib {
namespace {

constexpr size_t kA = 0, kB = 1, kScales = 2, kZeroPoints = 3, kGroupIndex = 4, kBias = 5;

struct NBitsLayout {
  int64_t k = 0, n = 0, bits = 0, blockSize = 0, blocks = 0, blobBytes = 0;
  bool packedZeros = false;  // uint8 zero points, bit-packed like B
};

Expected<NBitsLayout> readLayout(const KernelContext& ctx) {
  NBitsLayout l;
  l.k = ctx.attrInt("K", -1);
  l.n = ctx.attrInt("N", -1);
  l.bits = ctx.attrInt("bits", 4);
  l.blockSize = ctx.attrInt("block_size", 0);
  if (l.k <= 0 || l.n <= 0) return ctx.error("K and N must be positive");
  if (l.bits != 2 && l.bits != 4 && l.bits != 8) return ctx.error("bits " + std::to_string(l.bits) + " is not supported (2, 4 or 8)");
  if (l.blockSize < 16 || (l.blockSize & (l.blockSize - 1)))
    return ctx.error("block_size " + std::to_string(l.blockSize) + " must be a power of two of at least 16");
  if (ctx.attrInt("weight_prepacked", 0) != 0) return ctx.error("prepacked weights (weight_prepacked) are not supported");
  // Past 2^31 (no model's size) the layout arithmetic below would overflow int64.
  constexpr int64_t kLimit = int64_t(1) << 31;
  if (l.k > kLimit || l.n > kLimit || l.blockSize > kLimit) return ctx.error("K, N and block_size must be at most 2^31");
  l.blocks = (l.k - 1) / l.blockSize + 1;
  l.blobBytes = l.blockSize * l.bits / 8;
  const TensorValue& b = ctx.input(kB);
  const auto bBytes = checkedMul(l.n * l.blocks, l.blobBytes);
  if (!bBytes) return ctx.error("N x ceil(K / block_size) x block_size * bits / 8 passes 2^63 bytes", kB);
  if (b.dtype() != DataType::Uint8 || b.count() != *bBytes)
    return ctx.error("B " + b.describe() + " must be uint8 holding N x ceil(K / block_size) x block_size * bits / 8 = " +
                         std::to_string(*bBytes) + " bytes", kB);
  const TensorValue& scales = ctx.input(kScales);
  if (!isFloatStorage(scales.dtype()) || scales.count() != l.n * l.blocks)
    return ctx.error("scales " + scales.describe() + " must hold N x ceil(K / block_size) = " + std::to_string(l.n * l.blocks) +
                         " float values", kScales);
  if (ctx.hasInput(kZeroPoints)) {
    const TensorValue& z = ctx.input(kZeroPoints);
    l.packedZeros = z.dtype() == DataType::Uint8;
    const int64_t expected = l.packedZeros ? l.n * ((l.blocks * l.bits + 7) / 8) : l.n * l.blocks;
    if ((!l.packedZeros && !isFloatStorage(z.dtype())) || z.count() != expected)
      return ctx.error("zero_points " + z.describe() + " must be packed uint8 (" + std::to_string(l.n * ((l.blocks * l.bits + 7) / 8)) +
                           " bytes) or float (" + std::to_string(l.n * l.blocks) + " values)", kZeroPoints);
  }
  if (ctx.hasInput(kGroupIndex)) {
    const TensorValue& g = ctx.input(kGroupIndex);
    if (g.dtype() != DataType::Int32 || g.count() != l.k) return ctx.error("g_idx " + g.describe() + " must be int32 [K]", kGroupIndex);
    for (int64_t i = 0; i < l.k; ++i)
      if (g.data<int32_t>()[i] < 0 || g.data<int32_t>()[i] >= l.blocks)
        return ctx.error("g_idx holds block " + std::to_string(g.data<int32_t>()[i]) + " outside [0, " + std::to_string(l.blocks) + ")", kGroupIndex);
  }
  if (ctx.hasInput(kBias)) {
    // bias is widened as A's float type (fuzz: a 1-byte bias was read as 2-byte floats, past its end).
    const TensorValue& bias = ctx.input(kBias);
    if (bias.dtype() != ctx.input(kA).dtype())
      return ctx.error("bias " + bias.describe() + " must have A's type " + std::string(dataTypeName(ctx.input(kA).dtype())), kBias);
    if (bias.count() != l.n) return ctx.error("bias must hold N values", kBias);
  }
  return l;
}

// Decodes rows [n0, n1) of the dequantized weight (each K floats) into dst.
struct NBitsDecoder {
  const NBitsLayout& l;
  const uint8_t* q;
  std::vector<float> scales;     // N x blocks
  std::vector<float> zeros;      // N x blocks, the zero point of each block as float
  const int32_t* groups = nullptr;  // g_idx, or null

  void decode(int64_t n0, int64_t n1, float* dst) const {
    const int64_t perByte = 8 / l.bits;
    const unsigned mask = (1u << l.bits) - 1u;
    std::vector<float> codes(size_t(l.blockSize));
    for (int64_t n = n0; n < n1; ++n) {
      float* row = dst + (n - n0) * l.k;
      const float* rowScales = scales.data() + n * l.blocks;
      const float* rowZeros = zeros.data() + n * l.blocks;
      for (int64_t blk = 0; blk < l.blocks; ++blk) {
        const uint8_t* blob = q + (n * l.blocks + blk) * l.blobBytes;
        const int64_t first = blk * l.blockSize, count = std::min(l.blockSize, l.k - first);
        if (l.bits == 4) {
          for (int64_t i = 0; i + 1 < count; i += 2) {
            codes[size_t(i)] = float(blob[i / 2] & 0xF);
            codes[size_t(i + 1)] = float(blob[i / 2] >> 4);
          }
          if (count & 1) codes[size_t(count - 1)] = float(blob[(count - 1) / 2] & 0xF);
        } else {
          for (int64_t i = 0; i < count; ++i)
            codes[size_t(i)] = float((blob[i / perByte] >> ((i % perByte) * l.bits)) & mask);
        }
        if (groups) {
          for (int64_t i = 0; i < count; ++i) {
            const int32_t g = groups[first + i];
            row[first + i] = (codes[size_t(i)] - rowZeros[g]) * rowScales[g];
          }
        } else {
          const float s = rowScales[blk], z = rowZeros[blk];
          for (int64_t i = 0; i < count; ++i) row[first + i] = (codes[size_t(i)] - z) * s;
        }
      }
    }
  }
};

std::vector<float> zeroPointsOf(const KernelContext& ctx, const NBitsLayout& l) {
  std::vector<float> zeros(size_t(l.n * l.blocks), float(1 << (l.bits - 1)));
  if (!ctx.hasInput(kZeroPoints)) return zeros;
  const TensorValue& z = ctx.input(kZeroPoints);
  if (!l.packedZeros) return floatsOf(z);
  const int64_t rowBytes = (l.blocks * l.bits + 7) / 8, perByte = 8 / l.bits;
  const unsigned mask = (1u << l.bits) - 1u;
  const uint8_t* packed = z.data<uint8_t>();
  for (int64_t n = 0; n < l.n; ++n)
    for (int64_t blk = 0; blk < l.blocks; ++blk)
      zeros[size_t(n * l.blocks + blk)] = float((packed[n * rowBytes + blk / perByte] >> ((blk % perByte) * l.bits)) & mask);
  return zeros;
}

// What both kernels check and allocate first: A's storage and K, the layout, Y (A's dims with N last).
struct NBitsCall {
  const TensorValue& a;
  NBitsLayout layout;
  TensorValue* y = nullptr;
  int64_t m = 0;  // rows of A
};

Expected<NBitsCall> startNBitsCall(KernelContext& ctx) {
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const TensorValue& a = std::get<0>(*inputs);
  if (!isFloatStorage(a.dtype())) return ctx.unsupportedType(kA);
  auto layout = readLayout(ctx);
  if (!layout) return layout.error();
  if (a.rank() < 1 || a.dim(a.rank() - 1) != layout->k)
    return ctx.error("A " + a.describe() + " must end in K = " + std::to_string(layout->k), kA);
  Dims outDims = a.dims();
  outDims.back() = layout->n;
  auto y = ctx.allocateOutput(0, a.dtype(), outDims);
  if (!y) return y.error();
  return NBitsCall{a, *layout, *y, a.count() / layout->k};
}

Expected<void> runMatMulNBits(KernelContext& ctx) {
  auto call = startNBitsCall(ctx);
  if (!call) return call.error();
  const auto& [a, l, y, m] = *call;
  if (m == 0) return {};
  NBitsDecoder decoder{l, ctx.input(kB).data<uint8_t>(), floatsOf(ctx.input(kScales)), zeroPointsOf(ctx, l),
                       ctx.hasInput(kGroupIndex) ? ctx.input(kGroupIndex).data<int32_t>() : nullptr};
  WeightPanels panels;
  panels.k = l.k;
  panels.n = l.n;
  panels.columnMajor = true;
  panels.decode = [&](int64_t n0, int64_t n1, float* dst) { decoder.decode(n0, n1, dst); };
  const std::vector<float> bias = floatsOf(ctx.input(kBias));
  std::vector<float> aScratch, yScratch;
  const float* af = floatData(a, aScratch);
  float* yf = a.dtype() == DataType::Float ? y->data<float>() : (yScratch.resize(size_t(m * l.n)), yScratch.data());
  gemmPanels(ctx, af, m, l.k, panels, bias.empty() ? nullptr : bias.data(), yf, l.n);
  if (a.dtype() != DataType::Float) fromFloats(a.dtype(), yf, y->raw(), m * l.n);
  return {};
}

int64_t matMulNBitsFlops(const KernelContext& ctx) {
  const TensorValue& a = ctx.input(kA);
  const int64_t k = ctx.attrInt("K", 0), n = ctx.attrInt("N", 0);
  return k > 0 ? 2 * (a.count() / k) * k * n : 0;
}

// The panel kernel (nbits_gemm.h): the weights are read where they lie, scales and zero points widened to
// float32 when they are not (a float16 model's scales, packed uint8 zero points: n x blocks values). With
// float32 A it computes the nodes after it that matmulEpilogueChain reads (a bias Add, GELU, a residual
// Add...) on each tile of Y as the tile is done (matmul_epilogue_cpu.h).
class PanelMatMulNBits final : public Kernel {
 public:
  bool setEpilogue(const std::vector<EpilogueOp>& ops) override {
    auto epilogue = CpuMatmulEpilogue::of(ops);
    if (!epilogue) return false;
    epilogue_ = std::move(*epilogue);
    return true;
  }

  bool canFuseEpilogue(const KernelContext& ctx) const override {
    const TensorValue& a = ctx.input(kA);
    const int64_t n = ctx.attrInt("N", -1);
    if (a.dtype() != DataType::Float || a.rank() < 1 || n <= 0) return false;
    Dims outDims = a.dims();
    outDims.back() = n;
    return epilogue_.fits(ctx, outDims);
  }

  Expected<void> run(KernelContext& ctx) override {
    auto call = startNBitsCall(ctx);
    if (!call) return call.error();
    const auto& [a, l, y, m] = *call;
    if (m == 0) return {};
    std::vector<float> scaleScratch, aScratch, yScratch;
    const std::vector<float> zeros = ctx.hasInput(kZeroPoints) ? zeroPointsOf(ctx, l) : std::vector<float>();
    NBitsWeights weights;
    weights.shape = {l.k, l.n, l.bits, l.blockSize};
    weights.codes = ctx.input(kB).data<uint8_t>();
    weights.scales = floatData(ctx.input(kScales), scaleScratch);
    weights.zeros = zeros.empty() ? nullptr : zeros.data();
    weights.groups = ctx.hasInput(kGroupIndex) ? ctx.input(kGroupIndex).data<int32_t>() : nullptr;
    const std::vector<float> bias = floatsOf(ctx.input(kBias));
    const float* af = floatData(a, aScratch);
    float* yf = a.dtype() == DataType::Float ? y->data<float>() : (yScratch.resize(size_t(m * l.n)), yScratch.data());
    NBitsTileDone epilogue;
    const int64_t n = l.n;  // clang before 16 cannot capture structured bindings in lambdas
    if (ctx.fusingEpilogue())
      epilogue = [&, n](int64_t row0, int64_t rows, int64_t col0, int64_t cols) {
        epilogue_.apply(ctx, yf, n, n, row0, rows, col0, cols);
      };
    nbitsGemm(ctx.pool(), af, m, l.k, weights, bias.empty() ? nullptr : bias.data(), yf, l.n, nativeNBitsIsa(), epilogue);
    if (a.dtype() != DataType::Float) fromFloats(a.dtype(), yf, y->raw(), m * l.n);
    return {};
  }

 private:
  CpuMatmulEpilogue epilogue_;
};

Expected<std::unique_ptr<Kernel>> makePanelMatMulNBits(const PrepareContext&) {
  return std::unique_ptr<Kernel>(std::make_unique<PanelMatMulNBits>());
}

}  // namespace

void registerMatMulNBitsCpuKernels(KernelRegistry& registry) {
  KernelDef reference = microsoftKernel("MatMulNBits", runMatMulNBits);
  reference.flops = matMulNBitsFlops;
  registry.add(std::move(reference));
  KernelDef panels = kernelFactory("MatMulNBits", makePanelMatMulNBits, 1);
  panels.domain = kMicrosoftDomain;
  panels.variant = "panels";
  panels.isaDispatched = true;
  panels.priority = 20;
  panels.flops = matMulNBitsFlops;
  registry.add(std::move(panels));
}

}  // namespace onyx::exec::contrib
