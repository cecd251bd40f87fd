// MaxPool and AveragePool over 2-D float32 images: the common case of CNNs, without the reference kernel's
// per-element index arithmetic. Each output walks only the window rows and columns inside the image (found
// once per row and column), so the inner loop is a plain strided scan; the outputs whose window row lies
// inside the image take each tap across the whole row at once (vector loops, in the reference's tap order,
// so sums round and NaNs propagate as there: inception's 3 x 3 pools on 288 x 35 x 35 ran 2-3x slower than
// ONNX Runtime as scalar scans). The reference kernel (pool_cpu.cpp)
// stays the oracle and handles everything else (Indices output, other ranks and types, LpPool). Both also
// read the channels-last storage of oneDNN convolutions, and GlobalAveragePool has that path too.
#include <algorithm>
#include <vector>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"
#include "exec/cpu/isa_dispatch.h"

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

// A 2-D pooling window over an H x W image: sizes, strides, dilations, padding, output size, and per output
// column the taps inside the image and inside the padded image (count_include_pad).
struct Window2d {
  int64_t KH, KW, sh, sw, dh, dw, ph, pw, padEndH, padEndW, OH, OW;
  bool countPad;
  std::vector<TapRange> cols, paddedCols;
};

Expected<Window2d> window2d(const KernelContext& ctx, int64_t H, int64_t W) {
  auto kernelShape = ctx.attrInts("kernel_shape");
  if (!kernelShape || kernelShape->size() != 2) return ctx.error("needs a 2-D kernel_shape");
  auto g = windowGeometry(ctx, {H, W}, *kernelShape, ctx.attrInt("ceil_mode", 0) != 0);
  if (!g) return g.error();
  Window2d w{(*kernelShape)[0],
             (*kernelShape)[1],
             g->strides[0],
             g->strides[1],
             g->dilations[0],
             g->dilations[1],
             g->padsBegin[0],
             g->padsBegin[1],
             g->padsEnd[0],
             g->padsEnd[1],
             g->outSize[0],
             g->outSize[1],
             ctx.attrInt("count_include_pad", 0) != 0,
             {},
             {}};
  for (int64_t ow = 0; ow < w.OW; ++ow) {
    w.cols.push_back(tapsWithin(ow * w.sw - w.pw, w.dw, w.KW, 0, W));
    w.paddedCols.push_back(tapsWithin(ow * w.sw - w.pw, w.dw, w.KW, -w.pw, W + w.padEndW));
  }
  return w;
}

// The interior outputs of one row, whose whole window row lies inside the image: acc[i] over the window
// rows and then the taps in the reference's order, one tap across all outputs at a time (a vector loop;
// contiguous for stride 1). The max keeps the reference's rule: the first tap, then strictly greater ones.
ONYX_ISA_BODY void windowMaxRowBody(const float* const* rows, int64_t rowCount, int64_t taps,
                                     int64_t dilation, int64_t stride, int64_t count, float* acc) {
  for (int64_t r = 0; r < rowCount; ++r)
    for (int64_t k = 0; k < taps; ++k) {
      const float* p = rows[r] + k * dilation;
      if (r == 0 && k == 0) {
        for (int64_t i = 0; i < count; ++i) acc[i] = p[i * stride];
      } else {
        for (int64_t i = 0; i < count; ++i) {
          const float v = p[i * stride];
          acc[i] = v > acc[i] ? v : acc[i];
        }
      }
    }
}
ONYX_ISA_DISPATCHED(void, windowMaxRow,
                    (const float* const* rows, int64_t rowCount, int64_t taps, int64_t dilation,
                     int64_t stride, int64_t count, float* acc),
                    (rows, rowCount, taps, dilation, stride, count, acc))

ONYX_ISA_BODY void windowSumRowBody(const float* const* rows, int64_t rowCount, int64_t taps,
                                     int64_t dilation, int64_t stride, int64_t count, float* acc) {
  for (int64_t i = 0; i < count; ++i) acc[i] = 0;
  for (int64_t r = 0; r < rowCount; ++r)
    for (int64_t k = 0; k < taps; ++k) {
      const float* p = rows[r] + k * dilation;
      for (int64_t i = 0; i < count; ++i) acc[i] += p[i * stride];
    }
}
ONYX_ISA_DISPATCHED(void, windowSumRow, (const float* const* rows, int64_t rowCount, int64_t taps, int64_t dilation, int64_t stride, int64_t count, float* acc), (rows, rowCount, taps, dilation, stride, count, acc))


template <bool IsMax>
Expected<void> pool2d(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  // Value types are known only at run time: other inputs go to the reference kernel.
  if (x.rank() != 4 || x.dtype() != DataType::Float)
    return IsMax ? maxPoolReference(ctx) : averagePoolReference(ctx);
  const int64_t H = x.dim(2), W = x.dim(3);
  auto window = window2d(ctx, H, W);
  if (!window) return window.error();
  const Window2d& g = *window;
  const int64_t OH = g.OH, OW = g.OW;
  auto y = ctx.allocateOutput(0, DataType::Float, {x.dim(0), x.dim(1), OH, OW});
  if (!y) return y.error();
  const float* px = x.data<float>();
  float* py = (*y)->data<float>();
  const int64_t planes = x.dim(0) * x.dim(1);
  // The output columns whose window row lies wholly inside the image: a contiguous range, run as vectors.
  int64_t interiorBegin = 0, interiorEnd = 0;
  for (int64_t ow = 0; ow < OW; ++ow)
    if (g.cols[size_t(ow)].begin == 0 && g.cols[size_t(ow)].end == g.KW) {
      if (interiorEnd == 0) interiorBegin = ow;
      interiorEnd = ow + 1;
    }
  ctx.parallelFor(planes, 1, [&](int64_t pb, int64_t pe) {
    std::vector<const float*> windowRows(size_t(g.KH));
    std::vector<float> interior(size_t(interiorEnd - interiorBegin));
    for (int64_t plane = pb; plane < pe; ++plane) {
      const float* src = px + plane * H * W;
      float* dst = py + plane * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        const TapRange rows = tapsWithin(h0, g.dh, g.KH, 0, H);
        const TapRange paddedRows = tapsWithin(h0, g.dh, g.KH, -g.ph, H + g.padEndH);
        if (rows.end > rows.begin && interiorEnd > interiorBegin) {
          int64_t rowCount = 0;
          for (int64_t kh = rows.begin; kh < rows.end; ++kh)
            windowRows[size_t(rowCount++)] = src + (h0 + kh * g.dh) * W + interiorBegin * g.sw - g.pw;
          const int64_t count = interiorEnd - interiorBegin;
          if constexpr (IsMax)
            windowMaxRow(windowRows.data(), rowCount, g.KW, g.dw, g.sw, count, dst + oh * OW + interiorBegin);
          else
            windowSumRow(windowRows.data(), rowCount, g.KW, g.dw, g.sw, count, interior.data());
        }
        for (int64_t ow = 0; ow < OW; ++ow) {
          const bool vectorised = rows.end > rows.begin && ow >= interiorBegin && ow < interiorEnd;
          if (IsMax && vectorised) {
            ow = interiorEnd - 1;
            continue;
          }
          if (vectorised) {
            int64_t count = (rows.end - rows.begin) * g.KW;
            if (g.countPad)
              count = (paddedRows.end - paddedRows.begin) *
                      (g.paddedCols[size_t(ow)].end - g.paddedCols[size_t(ow)].begin);
            dst[oh * OW + ow] = interior[size_t(ow - interiorBegin)] / float(count);
            continue;
          }
          const int64_t w0 = ow * g.sw - g.pw;
          const TapRange c = g.cols[size_t(ow)];
          float acc = 0;
          bool any = false;
          for (int64_t kh = rows.begin; kh < rows.end; ++kh) {
            const float* row = src + (h0 + kh * g.dh) * W + w0;
            for (int64_t kw = c.begin; kw < c.end; ++kw) {
              const float v = row[kw * g.dw];
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
            if (g.countPad)
              count = (paddedRows.end - paddedRows.begin) *
                      (g.paddedCols[size_t(ow)].end - g.paddedCols[size_t(ow)].begin);
            dst[oh * OW + ow] = count ? acc / float(count) : 0.0f;
          }
        }
      }
    }
  });
  return {};
}

// The same windows over channels-last storage (after a oneDNN Conv): every tap is a contiguous vector of C
// channels. The input may be the parts of a Concat along channels that the executor folded
// (KernelContext::inputParts): each part's channels go to their range of every output pixel. Writes
// channels-last when the readers take it, else plain.
template <bool IsMax>
Expected<void> pool2dChannelsLast(KernelContext& ctx, const std::vector<const TensorValue*>& parts) {
  const TensorValue& x = *parts[0];
  int64_t C = 0;
  for (const TensorValue* part : parts) C += part->dim(1);
  const int64_t N = x.dim(0), H = x.dim(2), W = x.dim(3);
  auto window = window2d(ctx, H, W);
  if (!window) return window.error();
  const Window2d& g = *window;
  const int64_t OH = g.OH, OW = g.OW;
  auto y = ctx.allocateOutput(0, DataType::Float, {N, C, OH, OW});
  if (!y) return y.error();
  const bool lastOut = ctx.outputMayBeChannelsLast();
  (*y)->setChannelsLast(lastOut);
  float* py = (*y)->data<float>();
  // Per part, per output column: where its first in-image column starts and how many there are.
  struct PartColumns {
    std::vector<int64_t> start, count, taps;
  };
  std::vector<PartColumns> columns(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t channels = parts[p]->dim(1);
    for (int64_t ow = 0; ow < OW; ++ow) {
      const TapRange cols = g.cols[size_t(ow)];
      columns[p].start.push_back((ow * g.sw - g.pw + cols.begin * g.dw) * channels);
      columns[p].count.push_back(cols.end - cols.begin);
    }
    for (int64_t t = 0; t < g.KW; ++t) columns[p].taps.push_back(t * g.dw * channels);
  }
  ctx.parallelFor(N * OH, 1, [&](int64_t rb, int64_t re) {
    std::vector<const float*> rowPointers(size_t(g.KH));
    std::vector<float> scratch(size_t(W * C));
    std::vector<float> row(lastOut ? 0 : size_t(OW * C));  // one output row, channels-last, for plain writes
    for (int64_t r = rb; r < re; ++r) {
      const int64_t n = r / OH, oh = r % OH, h0 = oh * g.sh - g.ph;
      const TapRange rows = tapsWithin(h0, g.dh, g.KH, 0, H);
      const TapRange paddedRows = tapsWithin(h0, g.dh, g.KH, -g.ph, H + g.padEndH);
      float* out = lastOut ? py + (n * OH + oh) * OW * C : row.data();
      if (rows.end == rows.begin) {
        std::fill(out, out + OW * C, 0.0f);
      } else {
        int64_t channelsBefore = 0;
        for (size_t p = 0; p < parts.size(); ++p) {
          const int64_t channels = parts[p]->dim(1);
          const float* image = parts[p]->data<float>() + n * H * W * channels;
          int64_t count = 0;
          for (int64_t kh = rows.begin; kh < rows.end; ++kh)
            rowPointers[size_t(count++)] = image + (h0 + kh * g.dh) * W * channels;
          const PoolRow pass{rowPointers.data(),
                             count,
                             W * channels,
                             scratch.data(),
                             columns[p].start.data(),
                             columns[p].count.data(),
                             columns[p].taps.data(),
                             OW,
                             channels,
                             out + channelsBefore,
                             C};
          if constexpr (IsMax)
            fastPoolRowMax(pass);
          else
            fastPoolRowSum(pass);
          channelsBefore += channels;
        }
      }
      if constexpr (!IsMax) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t count = (rows.end - rows.begin) * (g.cols[size_t(ow)].end - g.cols[size_t(ow)].begin);
          if (g.countPad) {
            const TapRange padded = g.paddedCols[size_t(ow)];
            count = (paddedRows.end - paddedRows.begin) * (padded.end - padded.begin);
          }
          const float scale = count ? 1.0f / float(count) : 0.0f;
          for (int64_t c = 0; c < C; ++c) out[ow * C + c] *= scale;
        }
      }
      if (!lastOut)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t ow = 0; ow < OW; ++ow) py[((n * C + c) * OH + oh) * OW + ow] = row[size_t(ow * C + c)];
    }
  });
  return {};
}

template <bool IsMax>
class Pool2d final : public Kernel {
 public:
  Expected<void> run(KernelContext& ctx) override {
    auto channelsLast = [](const TensorValue* t) {
      return t->channelsLast() && t->rank() == 4 && t->dtype() == DataType::Float;
    };
    // Concatenated parts are read where they lie when all are channels-last, else joined (input 0).
    std::vector<const TensorValue*> parts = ctx.inputParts(0);
    if (parts.empty() || !std::all_of(parts.begin(), parts.end(), channelsLast)) parts = {&ctx.input(0)};
    if (channelsLast(parts[0])) return pool2dChannelsLast<IsMax>(ctx, parts);
    return pool2d<IsMax>(ctx);
  }
  bool acceptsChannelsLast(size_t input) const override { return input == 0; }
  bool producesChannelsLast() const override { return true; }
};

// GlobalAveragePool of float32 channels-last storage: sums of contiguous channel vectors. The output has
// one element per (N, C), the same bytes in both layouts, so it is written plain.
class GlobalAveragePoolChannelsLast final : public Kernel {
 public:
  Expected<void> run(KernelContext& ctx) override {
    const TensorValue& x = ctx.input(0);
    if (!x.channelsLast() || x.dtype() != DataType::Float) return runReferenceKernel(ctx);
    const int64_t N = x.dim(0), C = x.dim(1), spatial = x.count() / std::max<int64_t>(N * C, 1);
    Dims outDims = {N, C};
    for (int64_t d = 2; d < x.rank(); ++d) outDims.push_back(1);
    auto y = ctx.allocateOutput(0, DataType::Float, outDims);
    if (!y) return y.error();
    const float* px = x.data<float>();
    float* py = (*y)->data<float>();
    // Blocks of pixels summed in parallel (batch 1 has one image to split), then the blocks' sums in order:
    // the same partition, hence the same rounding, for any thread count.
    const int64_t block = std::max<int64_t>(1, 8192 / std::max<int64_t>(C, 1));
    const int64_t blocks = std::max<int64_t>(1, (spatial + block - 1) / block);
    // Kept between runs: allocated afresh each run, mobilenet_v2's last pool (1280 x 7 x 7, 9 blocks) took
    // 0.080 ms a run at 2 threads instead of 0.018 (no page faults either way; the summing itself is ~4 us).
    std::vector<float>& sums = sums_;
    sums.assign(size_t(N * blocks * C), 0.0f);
    ctx.parallelFor(N * blocks, 1, [&](int64_t b, int64_t e) {
      for (int64_t job = b; job < e; ++job) {
        const int64_t n = job / blocks, first = (job % blocks) * block;
        const int64_t rows = std::min(spatial, first + block) - first;
        if (rows > 0) fastSumPixels(px + (n * spatial + first) * C, rows, C, sums.data() + job * C);
      }
    });
    const float scale = spatial ? 1.0f / float(spatial) : 0.0f;
    for (int64_t n = 0; n < N; ++n) {
      float* out = py + n * C;
      std::fill(out, out + C, 0.0f);
      for (int64_t k = 0; k < blocks; ++k) fastAddInto(out, sums.data() + (n * blocks + k) * C, C);
      for (int64_t c = 0; c < C; ++c) out[c] *= scale;
    }
    return {};
  }
  bool acceptsChannelsLast(size_t input) const override { return input == 0; }

 private:
  std::vector<float> sums_;
};

// 2-D windows without MaxPool's Indices output; the reference runs the rest.
bool supportsPool2d(const Node& node, int) {
  auto kernelShape = node.attrInts("kernel_shape");
  if (!kernelShape || kernelShape->size() != 2) return false;
  return !(node.outputCount() > 1 && node.output(1) && !node.output(1)->name().empty());
}

}  // namespace

void addPool2dCpuKernels(KernelRegistry& r) {
  for (bool isMax : {true, false}) {
    KernelFactory make = isMax
                             ? KernelFactory([](const PrepareContext&) -> Expected<std::unique_ptr<Kernel>> {
                                 return std::unique_ptr<Kernel>(std::make_unique<Pool2d<true>>());
                               })
                             : KernelFactory([](const PrepareContext&) -> Expected<std::unique_ptr<Kernel>> {
                                 return std::unique_ptr<Kernel>(std::make_unique<Pool2d<false>>());
                               });
    KernelDef def = kernelFactory(isMax ? "MaxPool" : "AveragePool", make, 1);
    def.variant = "fast";
    def.isaDispatched = true;
    def.priority = 10;
    def.supports = supportsPool2d;
    r.add(std::move(def));
  }
  KernelDef global =
      kernelFactory("GlobalAveragePool", [](const PrepareContext&) -> Expected<std::unique_ptr<Kernel>> {
        return std::unique_ptr<Kernel>(std::make_unique<GlobalAveragePoolChannelsLast>());
      });
  global.variant = "channels-last";
  global.isaDispatched = true;
  global.priority = 10;
  r.add(std::move(global));
}

}  // namespace onyx::exec
