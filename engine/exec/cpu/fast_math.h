#pragma once
// Vectorised float32 array functions for hot element-wise ops. Each is compiled for AVX-512, AVX2 and
// baseline x86-64 and picked at load time (target_clones). Approximations are accurate to a few ulp
// (exp, sigmoid, tanh) or 2e-7 absolute (erf); reference kernels use std:: math.
#include <cstdint>

namespace onyx::exec {

void fastRelu(const float* x, float* y, int64_t n, float, float);
void fastSigmoid(const float* x, float* y, int64_t n, float, float);
void fastTanh(const float* x, float* y, int64_t n, float, float);
void fastHardSigmoid(const float* x, float* y, int64_t n, float alpha, float beta);
void fastHardSwish(const float* x, float* y, int64_t n, float, float);
void fastExp(const float* x, float* y, int64_t n, float, float);
void fastErf(const float* x, float* y, int64_t n, float, float);
// x * (erf(x / sqrt 2) + 1) * 0.5 in one pass, in the order of the five nodes exporters write for GELU
// (Div, Erf, Add, Mul, Mul), so it gives what they give with the fast Erf.
void fastGeluErf(const float* x, float* y, int64_t n, float, float);
void fastSilu(const float* x, float* y, int64_t n, float, float);  // x * sigmoid(x)
void fastClip(const float* x, float* y, int64_t n, float lo, float hi);
// acc[i] = max(acc[i], v[i]) (a NaN in v is kept only where acc is not larger: the pooling kernels' rule)
// and acc[i] += v[i]: the channel vectors of channels-last pooling.
void fastMaxInto(float* acc, const float* v, int64_t n);
void fastAddInto(float* acc, const float* v, int64_t n);
// Float Add, Sub, Mul or Div over `rows` rows of n outputs: y[r * yRow + i] = a(r, i) op b(r, i), where an
// operand that steps reads a[r * aRow + i] and one that does not reads a[r * aRow] for its whole row. y may
// be a or b (in place). One IEEE operation per element, as the scalar loops: the results are the same.
enum class Arith { Add, Sub, Mul, Div };
struct ArithRows {
  const float* a;
  const float* b;
  float* y;
  int64_t rows, n, aRow, bRow;
  bool aSteps, bSteps;
  int64_t yRow = 0;  // 0: n (rows written one after another)
};
void fastArithRows(Arith op, const ArithRows& rows);
// Channels-last pixels summed per channel: out[c] = sum over p < pixels of x[p * channels + c], in four
// partial sums over every fourth pixel (the same order on every instruction set).
void fastSumPixels(const float* x, int64_t pixels, int64_t channels, float* out);
// One output row of a 2-D pooling over channels-last storage, separably: the window's input rows are first
// reduced element by element into `scratch` (when more than one), then each output pixel reduces its
// columns of that row. Both passes stream contiguous memory, where a per-pixel window gathered KH * KW
// scattered vectors. Taps are taken in the reference's order (top-left first), so max keeps its NaN rule.
struct PoolRow {
  const float* const* rows;  // the window rows inside the image, each `rowLength` floats (W * channels)
  int64_t rowCount;          // at least one
  int64_t rowLength;
  float* scratch;             // rowLength floats
  const int64_t* columnStart;  // per output pixel: element offset of its first column in a row
  const int64_t* columnCount;  // per output pixel: its columns inside the image (0: the pixel is 0)
  const int64_t* tapOffsets;   // element offset of column tap t from the first (t * dilation * channels)
  int64_t outWidth, channels;
  float* out;                  // outWidth pixels of `channels` floats, `outStride` floats apart
  int64_t outStride;
};
void fastPoolRowMax(const PoolRow& row);
void fastPoolRowSum(const PoolRow& row);
// A row vector times a matrix packed in panels: y[0, n) = x[0, k) * W (k x n). Panel p holds W's columns
// [p * kGemvPanel, (p + 1) * kGemvPanel) as k rows of kGemvPanel floats, zero past n:
// panels[(p * k + i) * kGemvPanel + j] = W[i][p * kGemvPanel + j]. Recurrent cells' per-step products,
// where one GEMM call per step costs more than streaming W once.
constexpr int64_t kGemvPanel = 64;
inline int64_t gemvPanelsSize(int64_t k, int64_t n) {
  return (n + kGemvPanel - 1) / kGemvPanel * k * kGemvPanel;
}
void fastGemvPanels(const float* panels, const float* x, int64_t k, int64_t n, float* y);
// Writes W's column o (the k weights of output o, contiguous in `column`) where the panels keep it.
inline void packGemvColumn(float* panels, int64_t k, int64_t o, const float* column) {
  float* out = panels + (o / kGemvPanel) * k * kGemvPanel + o % kGemvPanel;
  for (int64_t i = 0; i < k; ++i) out[i * kGemvPanel] = column[i];
}
// One LayerNormalization row: y = (x - mean) / sqrt(var + eps) * scale (+ bias, may be null); returns the
// mean and writes 1 / sqrt(var + eps) to `invStdDev`.
float fastLayerNormRow(const float* x, float* y, int64_t n, const float* scale, const float* bias, float eps,
                       float* invStdDev);
// Softmax (or LogSoftmax) of `rows` contiguous rows of n floats: y = exp(x - max) / sum over the row. A row
// holding NaN gives NaN.
void fastSoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool logOutput);

}  // namespace onyx::exec
