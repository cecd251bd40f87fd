#pragma once
// The product of MatMulNBits: Y[m, n] = A[m, k] * dequantize(B)^T (+ bias), its 2-, 4- or 8-bit weights kept
// packed in memory. The weights are rearranged once (packNBitsPanels) into panels of kNBitsPanelWidth
// output columns whose codes for one row k of the weight lie together: a panel then decodes into a small
// float buffer (k x 32, resident in the core's cache) with straight vector loads, and a register-tiled
// micro-kernel (rows of A broadcast, 32 columns of the panel in vector registers, fused multiply-adds)
// multiplies every row of A by it. Each panel is decoded once per run and shared by all the rows (an int4
// weight is expanded to float32 only inside that buffer, never for the whole model). Panels are spread
// over the pool's threads.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace onyx::exec {
class ThreadPool;
}

namespace onyx::exec::contrib {

inline constexpr int64_t kNBitsPanelWidth = 32;

// The instruction sets the micro-kernels are compiled for; each runs on any CPU that has it.
enum class NBitsIsa { Baseline, Avx2, Avx512 };
// The best the running CPU supports (AVX-512: F, BW, DQ and VL; AVX2: with FMA and F16C).
NBitsIsa nativeNBitsIsa();

struct NBitsShape {
  int64_t k = 0, n = 0, bits = 4, blockSize = 32;
  int64_t blocks() const { return (k + blockSize - 1) / blockSize; }
};

// MatMulNBits' weights in panels. Panel p holds columns [32p, 32p + 32) (zero past n). For row r of the
// weight, codes[(p * k + r) * rowBytes + j] packs, low bits first, the codes of the panel's columns
// j, j + rowBytes, j + 2 * rowBytes... (rowBytes = 32 * bits / 8), so one vector load reads a whole row.
struct NBitsPanels {
  NBitsShape shape;
  int64_t panels = 0, rowBytes = 0;
  std::vector<uint8_t> codes;
  std::vector<float> scales;      // panels x blocks x 32
  std::vector<float> zeros;       // panels x blocks x 32; empty: every zero point is 2^(bits - 1)
  std::vector<int32_t> groups;    // g_idx: the block of each row k; empty: k / blockSize
  float defaultZeros[kNBitsPanelWidth] = {};
  size_t bytes() const;           // the memory the panels hold
};

// b: MatMulNBits' B (n x blocks x blockSize * bits / 8 bytes); scales: n x blocks; zeros: n x blocks zero
// points as float, or null for the default; groups: k block indices (g_idx), or null. The caller checked
// the sizes and the group indices.
NBitsPanels packNBitsPanels(const NBitsShape& shape, const uint8_t* b, const float* scales, const float* zeros,
                            const int32_t* groups);

// Y (ldy floats per row) = A (lda floats per row, m rows) * W^T (+ bias[n] when not null), with the given
// instruction set (the tests run each; the kernel passes nativeNBitsIsa()).
void nbitsGemm(ThreadPool& pool, const float* a, int64_t m, int64_t lda, const NBitsPanels& w, const float* bias,
               float* y, int64_t ldy, NBitsIsa isa);

}  // namespace onyx::exec::contrib
