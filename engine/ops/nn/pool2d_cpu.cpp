// MaxPool and AveragePool over 2-D float32 images: the common case of CNNs, without the reference kernel's
// per-element index arithmetic. Each output walks only the window rows and columns inside the image (found
// once per row and column), so the inner loop is a plain strided scan. The reference kernel (pool_cpu.cpp)
// stays the oracle and handles everything else (Indices output, other ranks and types, LpPool).
#include <algorithm>

#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"

namespace onyx::exec {

Expected<void> maxPoolReference(KernelContext& ctx);
Expected<void> averagePoolReference(KernelContext& ctx);

namespace {

// The window taps k in [begin, end) whose position start + k * dilation lies in [low, high).
struct TapRange {
  int64_t begin = 0, end = 0;
};
TapRange tapsWithin(int64_t start, int64_t dilation, int64_t taps, int64_t low, int64_t high) {
  TapRange r;
  r.begin = start >= low ? 0 : (low - start + dilation - 1) / dilation;
  r.end = start >= high ? 0 : std::min(taps, (high - 1 - start) / dilation + 1);
  if (r.end < r.begin) r.end = r.begin;
  return r;
}

template <bool IsMax>
Expected<void> pool2d(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  // Value types are known only at run time: other inputs go to the reference kernel.
  if (x.rank() != 4 || x.dtype() != DataType::Float) return IsMax ? maxPoolReference(ctx) : averagePoolReference(ctx);
  const int64_t H = x.dim(2), W = x.dim(3);
  auto kernelShape = ctx.attrInts("kernel_shape");
  if (!kernelShape || kernelShape->size() != 2) return ctx.error("needs a 2-D kernel_shape");
  auto g = windowGeometry(ctx, {H, W}, *kernelShape, ctx.attrInt("ceil_mode", 0) != 0);
  if (!g) return g.error();
  const bool countPad = ctx.attrInt("count_include_pad", 0) != 0;
  const int64_t OH = g->outSize[0], OW = g->outSize[1];
  auto y = ctx.allocateOutput(0, DataType::Float, {x.dim(0), x.dim(1), OH, OW});
  if (!y) return y.error();
  const int64_t KH = (*kernelShape)[0], KW = (*kernelShape)[1];
  const int64_t sh = g->strides[0], sw = g->strides[1], dh = g->dilations[0], dw = g->dilations[1];
  const int64_t ph = g->padsBegin[0], pw = g->padsBegin[1];
  // Per output column: the taps inside the image, and inside the padded image (count_include_pad).
  std::vector<TapRange> cols(static_cast<size_t>(OW)), paddedCols(static_cast<size_t>(OW));
  for (int64_t ow = 0; ow < OW; ++ow) {
    cols[size_t(ow)] = tapsWithin(ow * sw - pw, dw, KW, 0, W);
    paddedCols[size_t(ow)] = tapsWithin(ow * sw - pw, dw, KW, -pw, W + g->padsEnd[1]);
  }
  const float* px = x.data<float>();
  float* py = (*y)->data<float>();
  const int64_t planes = x.dim(0) * x.dim(1);
  ctx.parallelFor(planes, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t plane = pb; plane < pe; ++plane) {
      const float* src = px + plane * H * W;
      float* dst = py + plane * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = oh * sh - ph;
        const TapRange rows = tapsWithin(h0, dh, KH, 0, H);
        const TapRange paddedRows = tapsWithin(h0, dh, KH, -ph, H + g->padsEnd[0]);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = ow * sw - pw;
          const TapRange c = cols[size_t(ow)];
          float acc = 0;
          bool any = false;
          for (int64_t kh = rows.begin; kh < rows.end; ++kh) {
            const float* row = src + (h0 + kh * dh) * W + w0;
            for (int64_t kw = c.begin; kw < c.end; ++kw) {
              const float v = row[kw * dw];
              if constexpr (IsMax) {
                // As the reference: the first tap, then strictly greater ones (a NaN first stays).
                if (!any || v > acc) acc = v;
              } else {
                acc += v;
              }
              any = true;
            }
          }
          if constexpr (IsMax) {
            dst[oh * OW + ow] = any ? acc : 0.0f;
          } else {
            int64_t count = (rows.end - rows.begin) * (c.end - c.begin);
            if (countPad)
              count = (paddedRows.end - paddedRows.begin) * (paddedCols[size_t(ow)].end - paddedCols[size_t(ow)].begin);
            dst[oh * OW + ow] = count ? acc / float(count) : 0.0f;
          }
        }
      }
    }
  });
  return {};
}

// 2-D windows without MaxPool's Indices output; the reference runs the rest.
bool supportsPool2d(const Node& node, int) {
  auto kernelShape = node.attrInts("kernel_shape");
  if (!kernelShape || kernelShape->size() != 2) return false;
  return !(node.outputCount() > 1 && node.output(1) && !node.output(1)->name().empty());
}

}  // namespace

void addPool2dCpuKernels(KernelRegistry& r) {
  for (bool isMax : {true, false}) {
    KernelDef def = kernel(isMax ? "MaxPool" : "AveragePool", isMax ? pool2d<true> : pool2d<false>, 1);
    def.variant = "fast";
    def.priority = 10;
    def.supports = supportsPool2d;
    r.add(std::move(def));
  }
}

}  // namespace onyx::exec
