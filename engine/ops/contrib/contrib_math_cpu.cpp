// The two arithmetic sets of the com.microsoft float kernels (contrib_math.h). The reference set computes
// each row in double with std:: functions, so that it is the plain definition the fast loops are held to.
#include "ops/contrib/contrib_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/gemm.h"
#include "ops/contrib/contrib_kernels.h"

namespace onyx::exec::contrib {
namespace {

template <typename F>
void eachElement(const float* x, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = float(f(double(x[i])));
}

void referenceRelu(const float* x, float* y, int64_t n, float, float) {
  eachElement(x, y, n, [](double v) { return v < 0 ? 0.0 : v; });
}
void referenceSigmoid(const float* x, float* y, int64_t n, float, float) {
  eachElement(x, y, n, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
}
void referenceTanh(const float* x, float* y, int64_t n, float, float) {
  eachElement(x, y, n, [](double v) { return std::tanh(v); });
}
void referenceHardSigmoid(const float* x, float* y, int64_t n, float alpha, float beta) {
  eachElement(x, y, n, [=](double v) { return std::clamp(double(alpha) * v + beta, 0.0, 1.0); });
}
void referenceClip(const float* x, float* y, int64_t n, float lo, float hi) {
  eachElement(x, y, n, [=](double v) { return std::isnan(v) ? v : std::min(std::max(v, double(lo)), double(hi)); });
}
void referenceGeluErf(const float* x, float* y, int64_t n, float, float) {
  eachElement(x, y, n, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
}
void referenceAddInto(float* acc, const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = float(double(acc[i]) + v[i]);
}

void referenceSoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, bool logOutput) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * n;
    float* out = y + r * n;
    double max = -std::numeric_limits<double>::infinity();
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      nan = nan || std::isnan(in[i]);
      max = std::max(max, double(in[i]));
    }
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(double(in[i]) - max);
    for (int64_t i = 0; i < n; ++i) {
      const double shifted = double(in[i]) - max;
      out[i] = nan ? std::numeric_limits<float>::quiet_NaN()
                   : float(logOutput ? shifted - std::log(sum) : std::exp(shifted) / sum);
    }
  }
}

float referenceLayerNormRow(const float* x, float* y, int64_t n, const float* scale, const float* bias, float eps,
                            float* invStdDev) {
  double mean = 0, variance = 0;
  for (int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= double(n);
  for (int64_t i = 0; i < n; ++i) variance += (x[i] - mean) * (x[i] - mean);
  variance /= double(n);
  const double inv = 1.0 / std::sqrt(variance + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = float((x[i] - mean) * inv * scale[i] + (bias ? bias[i] : 0.0));
  if (invStdDev) *invStdDev = float(inv);
  return float(mean);
}

void referenceGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(transA ? a[p * lda + i] : a[i * lda + p]) * (transB ? b[j * ldb + p] : b[p * ldb + j]);
      float& out = c[i * ldc + j];
      out = float(double(alpha) * sum + (beta == 0.0f ? 0.0 : double(beta) * out));
    }
}

}  // namespace

const ContribMath& fastContribMath() {
  static const ContribMath math{fastRelu,    fastSigmoid, fastTanh,        fastHardSigmoid,  fastClip, fastGeluErf,
                                fastAddInto, fastSoftmaxRows, fastLayerNormRow, sgemm,         sgemmSerial};
  return math;
}

const ContribMath& referenceContribMath() {
  static const ContribMath math{referenceRelu,        referenceSigmoid, referenceTanh,    referenceHardSigmoid,
                                referenceClip,        referenceGeluErf, referenceAddInto, referenceSoftmaxRows,
                                referenceLayerNormRow, referenceGemm,   referenceGemm};
  return math;
}

void addMicrosoftKernels(KernelRegistry& registry, const std::string& op, KernelFunction reference,
                         KernelFunction fast, std::source_location where) {
  registry.add(microsoftKernel(op, reference), where);
  KernelDef def = microsoftKernel(op, fast);
  def.variant = "fast";
  def.isaDispatched = true;
  def.priority = 10;
  registry.add(std::move(def), where);
}

}  // namespace onyx::exec::contrib
