// Float storage conversions and the panel-decoding product of the com.microsoft kernels (contrib_kernels.h).
#include <algorithm>
#include <cstring>
#include <limits>

#include "exec/cpu/gemm.h"
#include "exec/cpu/half_convert.h"
#include "exec/thread_pool.h"
#include "ops/contrib/contrib_flops.h"
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/nbits_gemm.h"

namespace onyx::exec::contrib {
namespace {

// Columns per decoded panel: about 256 KB of float32 (it stays in L2 while the product reads it), at least
// 64 columns, and at least two panels per thread so that the threads share the work evenly. Each panel is
// one product call, which packs A again: 64 columns at K = 256 packed bert's activations 16 times per
// 1024-column weight.
int64_t panelWidthFor(int64_t k, int64_t n, int threads) {
  const int64_t byCache = std::max<int64_t>(64, (int64_t(64) << 10) / std::max<int64_t>(k, 1));
  const int64_t bySharing = std::max<int64_t>(16, n / (2 * std::max(threads, 1)));
  return std::max<int64_t>(16, std::min(byCache, bySharing) / 16 * 16);
}

}  // namespace

bool isFloatStorage(DataType dtype) {
  return dtype == DataType::Float || dtype == DataType::Float16 || dtype == DataType::BFloat16;
}

// Only the three float storage types are converted here: any other type's buffer has another element size
// (1 byte for uint8, int8, bool, float8, int4), and reading it as bfloat16 read twice its length (fuzz: heap
// over-read). Kernels check their inputs' types first; a caller that did not gets NaN, never a read.
void toFloats(DataType dtype, const void* src, float* dst, int64_t n) {
  if (n <= 0) return;  // an empty tensor's storage may be null, which memcpy must not get
  if (dtype == DataType::Float) {
    std::memcpy(dst, src, size_t(n) * sizeof(float));
  } else if (dtype == DataType::Float16) {
    halvesToFloats(static_cast<const uint16_t*>(src), dst, n);
  } else if (dtype == DataType::BFloat16) {
    const auto* b = static_cast<const BFloat16*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = float(b[i]);
  } else {
    std::fill(dst, dst + n, std::numeric_limits<float>::quiet_NaN());
  }
}

// The same for writing: a buffer of another type is left as it is, since 2-byte elements overran a 1-byte
// output (fuzz: heap write overflow). Kernels refuse such an output type before they compute.
void fromFloats(DataType dtype, const float* src, void* dst, int64_t n) {
  if (n <= 0) return;
  if (dtype == DataType::Float) {
    std::memcpy(dst, src, size_t(n) * sizeof(float));
  } else if (dtype == DataType::Float16) {
    floatsToHalves(src, static_cast<uint16_t*>(dst), n);
  } else if (dtype == DataType::BFloat16) {
    auto* b = static_cast<BFloat16*>(dst);
    for (int64_t i = 0; i < n; ++i) b[i] = BFloat16(src[i]);
  }
}

// A tensor of any numeric type reads through doubleAt, which knows every element size; float storage takes
// the fast conversion.
namespace {
// t's elements into `out` (resized to them: a kept vector keeps its storage).
void widenInto(const TensorValue& t, std::vector<float>& out) {
  out.resize(size_t(t.empty() ? 0 : t.count()));
  if (out.empty()) return;
  if (isFloatStorage(t.dtype())) {
    toFloats(t.dtype(), t.raw(), out.data(), t.count());
  } else {
    for (int64_t i = 0; i < t.count(); ++i) out[size_t(i)] = float(t.doubleAt(i));
  }
}
}  // namespace

std::vector<float> floatsOf(const TensorValue& t) {
  std::vector<float> out;
  widenInto(t, out);
  return out;
}

const float* floatData(const TensorValue& t, std::vector<float>& scratch) {
  if (t.dtype() == DataType::Float) return t.data<float>();
  widenInto(t, scratch);
  return scratch.data();
}

const float* floatData(const KernelContext& ctx, const TensorValue& t, std::vector<float>& scratch) {
  constexpr int64_t kPart = 16384;  // elements a thread widens at least
  if (t.dtype() == DataType::Float || !isFloatStorage(t.dtype()) || t.count() < 2 * kPart) return floatData(t, scratch);
  scratch.resize(size_t(t.count()));
  const auto* base = static_cast<const uint8_t*>(t.raw());
  const size_t bytes = elementBytes(t.dtype());
  float* out = scratch.data();
  ctx.parallelFor(t.count(), kPart, [&](int64_t begin, int64_t end) {
    toFloats(t.dtype(), base + size_t(begin) * bytes, out + begin, end - begin);
  });
  return out;
}

namespace {

// Calls panel(n0, n1) for each panel of W's columns, the panels spread over the context's threads.
void forEachPanel(const KernelContext& ctx, const WeightPanels& w, const std::function<void(int64_t, int64_t)>& panel) {
  const int64_t panelWidth = panelWidthFor(w.k, w.n, ctx.pool().threadCount());
  const int64_t panels = (w.n + panelWidth - 1) / panelWidth;
  ctx.parallelFor(panels, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) panel(p * panelWidth, std::min(w.n, (p + 1) * panelWidth));
  });
}

// Columns [n0, n1) of Y = A * W into `out` (row stride ldo), W's panel decoded into the thread's scratch.
void productPanel(const float* a, int64_t m, int64_t lda, const WeightPanels& w, int64_t n0, int64_t n1, float* out,
                  int64_t ldo) {
  thread_local std::vector<float> decoded;
  const int64_t width = n1 - n0;
  decoded.resize(size_t(w.k * width));
  w.decode(n0, n1, decoded.data());
  if (w.k == 0) {
    for (int64_t r = 0; r < m; ++r) std::fill(out + r * ldo, out + r * ldo + width, 0.0f);
  } else if (w.columnMajor) {
    sgemmSerial(false, true, m, width, w.k, 1.0f, a, lda, decoded.data(), w.k, 0.0f, out, ldo);
  } else {
    sgemmSerial(false, false, m, width, w.k, 1.0f, a, lda, decoded.data(), width, 0.0f, out, ldo);
  }
}

}  // namespace

void gemmPanels(const KernelContext& ctx, const float* a, int64_t m, int64_t lda, const WeightPanels& w,
                const float* bias, float* y, int64_t ldy) {
  if (m == 0 || w.n == 0) return;
  forEachPanel(ctx, w, [&](int64_t n0, int64_t n1) {
    float* out = y + n0;
    productPanel(a, m, lda, w, n0, n1, out, ldy);
    if (bias) {
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n1 - n0; ++j) out[r * ldy + j] += bias[n0 + j];
    }
  });
}

void gemmPanelsTo(const KernelContext& ctx, const float* a, int64_t m, int64_t lda, const WeightPanels& w,
                  const PanelSink& sink) {
  if (m == 0 || w.n == 0) return;
  forEachPanel(ctx, w, [&](int64_t n0, int64_t n1) {
    thread_local std::vector<float> product;
    product.resize(size_t(m * (n1 - n0)));
    productPanel(a, m, lda, w, n0, n1, product.data(), n1 - n0);
    sink(n0, n1, product.data());
  });
}

WeightPanels sixteenBitPanels(const TensorValue& w, bool transposed) {
  const int64_t k = transposed ? w.dim(1) : w.dim(0), n = transposed ? w.dim(0) : w.dim(1);
  const DataType dtype = w.dtype();
  const auto* base = static_cast<const uint8_t*>(w.raw());
  const size_t bytes = elementBytes(dtype);
  WeightPanels panels;
  panels.k = k;
  panels.n = n;
  panels.columnMajor = transposed;
  panels.decode = [=](int64_t n0, int64_t n1, float* dst) {
    const int64_t width = n1 - n0;
    if (transposed) {
      toFloats(dtype, base + size_t(n0 * k) * bytes, dst, width * k);
    } else {
      for (int64_t r = 0; r < k; ++r) toFloats(dtype, base + size_t(r * n + n0) * bytes, dst + r * width, width);
    }
  };
  return panels;
}

void gemmWeights(const KernelContext& ctx, const float* a, int64_t m, int64_t lda, const TensorValue& w,
                 bool transposed, const float* bias, float* y, int64_t ldy) {
  const int64_t k = transposed ? w.dim(1) : w.dim(0), n = transposed ? w.dim(0) : w.dim(1);
  if (w.dtype() == DataType::Float) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
      for (int64_t r = 0; r < m; ++r) std::fill(y + r * ldy, y + r * ldy + n, 0.0f);
    } else {
      sgemm(false, transposed, m, n, k, 1.0f, a, lda, w.data<float>(), transposed ? k : n, 0.0f, y, ldy);
    }
    if (bias) {
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) y[r * ldy + j] += bias[j];
    }
    return;
  }
  if (w.dtype() == DataType::Float16 && !transposed) {
    halfWeightsGemm(ctx.pool(), a, m, lda, static_cast<const uint16_t*>(w.raw()), k, n, bias, y, ldy, nativeNBitsIsa());
    return;
  }
  gemmPanels(ctx, a, m, lda, sixteenBitPanels(w, transposed), bias, y, ldy);
}

void rotateHead(float* x, int64_t half, const float* cos, const float* sin, bool interleaved) {
  for (int64_t i = 0; i < half; ++i) {
    float& a = interleaved ? x[2 * i] : x[i];
    float& b = interleaved ? x[2 * i + 1] : x[i + half];
    const float x1 = a, x2 = b;
    a = x1 * cos[i] - x2 * sin[i];
    b = x2 * cos[i] + x1 * sin[i];
  }
}

int64_t contribKernelFlops(const KernelContext& ctx) {
  InputDims dims(ctx.inputCount());
  for (size_t i = 0; i < dims.size(); ++i)
    if (ctx.hasInput(i)) dims[i] = ctx.inputDims(i);
  return contribFlops(ctx.node(), dims).value_or(0);
}

KernelDef microsoftKernel(std::string opType, KernelFunction function) {
  KernelDef def = kernel(std::move(opType), function, 1);
  def.domain = kMicrosoftDomain;
  def.flops = contribKernelFlops;
  return def;
}

}  // namespace onyx::exec::contrib
