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
void fastSilu(const float* x, float* y, int64_t n, float, float);  // x * sigmoid(x)
void fastClip(const float* x, float* y, int64_t n, float lo, float hi);
// acc[i] = max(acc[i], v[i]) (a NaN in v is kept only where acc is not larger: the pooling kernels' rule)
// and acc[i] += v[i]: the channel vectors of channels-last pooling.
void fastMaxInto(float* acc, const float* v, int64_t n);
void fastAddInto(float* acc, const float* v, int64_t n);
// One pooling window over channels-last storage: out[0, n) = max (or sum) over the taps of
// base[offsets[t] + i]; at least one tap.
void fastWindowMax(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n);
void fastWindowSum(const float* base, const int64_t* offsets, int64_t taps, float* out, int64_t n);
// One LayerNormalization row: y = (x - mean) / sqrt(var + eps) * scale (+ bias, may be null); returns the
// mean and writes 1 / sqrt(var + eps) to `invStdDev`.
float fastLayerNormRow(const float* x, float* y, int64_t n, const float* scale, const float* bias, float eps,
                       float* invStdDev);
// Softmax (or LogSoftmax) of `rows` contiguous rows of n floats: y = exp(x - max) / sum over the row. A row
// holding NaN gives NaN.
void fastSoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool logOutput);

}  // namespace onyx::exec
