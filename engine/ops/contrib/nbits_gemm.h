#pragma once
// The product of MatMulNBits: Y[m, n] = A[m, k] * dequantize(B)^T (+ bias), its 2-, 4- or 8-bit weights read
// where they lie, in MatMulNBits' own layout (no copy); float16 weights take the same path (halfWeightsGemm). The output columns are taken in panels of 32: a
// panel's codes are transposed block by block (16 x 16 byte transposes) and decoded into a k x 32 float
// buffer that stays in the core's cache, and a register-tiled micro-kernel (rows of A broadcast, the
// panel's 32 columns in vector registers, fused multiply-adds) multiplies every row of A by it. A weight is
// so decoded once per run and expanded to float32 only inside that buffer, never for the whole model.
// Panels are spread over the pool's threads.
#include <cstddef>
#include <cstdint>
#include <functional>

namespace onyx::exec {
class ThreadPool;
}

namespace onyx::exec::contrib {

inline constexpr int64_t kNBitsPanelWidth = 32;

// The instruction sets the micro-kernels are compiled for; each runs on any CPU that has it.
enum class NBitsIsa { Baseline, Avx2, Avx512 };
// The level ONYX_CPU_ISA allows on this CPU (exec::cpuIsa(): AVX-512 F, BW, DQ and VL; AVX2 with FMA).
NBitsIsa nativeNBitsIsa();

struct NBitsShape {
  int64_t k = 0, n = 0, bits = 4, blockSize = 32;
  int64_t blocks() const { return (k + blockSize - 1) / blockSize; }
};

// MatMulNBits' inputs, as the op lays them out.
struct NBitsWeights {
  NBitsShape shape;
  const uint8_t* codes = nullptr;    // B: n x blocks x blockSize * bits / 8 bytes, low bits first
  const float* scales = nullptr;     // n x blocks
  const float* zeros = nullptr;      // n x blocks zero points; null: 2^(bits - 1)
  const int32_t* groups = nullptr;   // g_idx: the block of each row k (checked by the caller); null: k / blockSize
};

// Called on the thread that computed it with each finished tile of Y, rows [row0, row0 + rows) and
// columns [col0, col0 + cols), while it is in cache (the kernel's fused epilogue).
using NBitsTileDone = std::function<void(int64_t row0, int64_t rows, int64_t col0, int64_t cols)>;

// Y (ldy floats per row) = A (lda floats per row, m rows) * W^T (+ bias[n] when not null), with the given
// instruction set (the tests run each; the kernel passes nativeNBitsIsa()).
void nbitsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const NBitsWeights& w, const float* bias,
               float* y, int64_t ldy, NBitsIsa isa, const NBitsTileDone& tileDone = {});

// The same product for float16 weights W (k x n, row-major, as MatMul's B): each panel's rows are 32
// halves side by side, widened into the panel buffer with F16C (AVX2 and AVX-512; the baseline converts
// one by one). So a float16 model's MatMul, Gemm and Attention projections run on this micro-kernel and
// read their weights at 16 bits.
// Serial products with float32 weights packed into the same panels, for callers that split the work
// themselves (attention's heads). packPanels writes W (k x n) as ceil(n / 32) panels of k x 32 floats, zero
// past n; W's rows are ldw apart, or W is given transposed (n rows of k, ldw apart). Each value is
// multiplied by `scale` on the way (attention's 1 / sqrt(head size)).
void packPanels(const float* w, int64_t ldw, int64_t k, int64_t n, bool transposed, float* panels, float scale = 1.0f);
// The floats packPanels writes for W (k x n).
inline int64_t packedPanelFloats(int64_t k, int64_t n) {
  return (n + kNBitsPanelWidth - 1) / kNBitsPanelWidth * kNBitsPanelWidth * k;
}
// The product for float32 weights that packPanels packed once (k x n), spread over the pool as nbitsGemm's:
// nothing to decode, each task reads its panel where it lies. MatMul's constant B where oneDNN has only its
// gemm:jit (no AVX-512).
void packedPanelsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const float* panels, int64_t k,
                      int64_t n, const float* bias, float* y, int64_t ldy, NBitsIsa isa,
                      const NBitsTileDone& tileDone = {});
// Y (m x n, rows ldy apart) = A (m x k, rows lda apart) * W packed by packPanels, on the calling thread.
void multiplyPacked(const float* a, int64_t lda, int64_t m, const float* panels, int64_t k, int64_t n, float* y,
                    int64_t ldy, NBitsIsa isa);

void halfWeightsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const uint16_t* w, int64_t k, int64_t n,
                     const float* bias, float* y, int64_t ldy, NBitsIsa isa, const NBitsTileDone& tileDone = {});

}  // namespace onyx::exec::contrib
