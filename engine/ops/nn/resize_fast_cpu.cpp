// Resize of float32 over the last two axes (every leading axis kept): the per-axis taps of resize_plan.h
// flattened into fixed-width index / weight tables, then two separable passes per plane, in float. The
// cheaper order runs first: upsampling interpolates the needed source rows horizontally once, then blends
// whole output rows vertically (contiguous, vectorised); downsampling blends source rows first. Chunks of
// output rows of every plane run in parallel. deeplabv3's [1,21,28,28] -> [1,21,224,224] bilinear Resize
// took 46.8 ms through the reference kernel's per-output tap enumeration in double. Other ranks, types,
// resized leading axes and tf_crop_and_resize's extrapolated borders go to the reference (resize_cpu.cpp),
// which stays the oracle.
#include <algorithm>
#include <optional>
#include <vector>

#include "exec/kernel_util.h"
#include "ops/nn/resize_plan.h"
#include "exec/cpu/isa_dispatch.h"

namespace onyx::exec {
namespace {

// One axis' taps as `width` taps per output index; short entries padded with weight 0 on a valid index.
struct AxisTable {
  int64_t width = 1;
  std::vector<int64_t> index;
  std::vector<float> weight;
  int64_t lowest(int64_t o) const {
    return *std::min_element(index.data() + o * width, index.data() + (o + 1) * width);
  }
  int64_t highest(int64_t o) const {
    return *std::max_element(index.data() + o * width, index.data() + (o + 1) * width);
  }
};

// The taps of one output index with zero weights dropped and taps on the same (edge-clamped) index merged,
// in double: a clamped pair of weights then sums to exactly 1 and copies the edge value.
std::vector<ResizeTap> mergedTaps(const std::vector<ResizeTap>& taps) {
  std::vector<ResizeTap> merged;
  for (const ResizeTap& tap : taps) {
    if (tap.weight == 0) continue;
    auto same =
        std::find_if(merged.begin(), merged.end(), [&](const ResizeTap& m) { return m.index == tap.index; });
    if (same != merged.end())
      same->weight += tap.weight;
    else
      merged.push_back(tap);
  }
  if (merged.empty()) merged.push_back({taps[0].index, 0.0});
  return merged;
}

// Nullopt when an output index has no taps (tf_crop_and_resize's extrapolation).
std::optional<AxisTable> flattenTaps(const std::vector<std::vector<ResizeTap>>& taps) {
  std::vector<std::vector<ResizeTap>> merged;
  AxisTable t;
  for (const auto& list : taps) {
    if (list.empty()) return std::nullopt;
    merged.push_back(mergedTaps(list));
    t.width = std::max<int64_t>(t.width, int64_t(merged.back().size()));
  }
  t.index.assign(taps.size() * size_t(t.width), 0);
  t.weight.assign(taps.size() * size_t(t.width), 0.0f);
  for (size_t o = 0; o < merged.size(); ++o)
    for (size_t k = 0; k < size_t(t.width); ++k) {
      const ResizeTap& tap = merged[o][std::min(k, merged[o].size() - 1)];
      t.index[o * size_t(t.width) + k] = tap.index;
      t.weight[o * size_t(t.width) + k] = k < merged[o].size() ? float(tap.weight) : 0.0f;
    }
  return t;
}

// out[x] = sum_k w[x, k] * row[index[x, k]]: a gather per tap.
void interpolateRow(const float* row, const AxisTable& t, int64_t outLen, float* out) {
  const int64_t* index = t.index.data();
  const float* weight = t.weight.data();
  if (t.width == 1) {
    for (int64_t x = 0; x < outLen; ++x) out[x] = weight[x] * row[index[x]];  // weight 1: exact
  } else if (t.width == 2) {
    for (int64_t x = 0; x < outLen; ++x)
      out[x] = weight[2 * x] * row[index[2 * x]] + weight[2 * x + 1] * row[index[2 * x + 1]];
  } else {
    for (int64_t x = 0; x < outLen; ++x) {
      float acc = 0;
      for (int64_t k = 0; k < t.width; ++k) acc += weight[x * t.width + k] * row[index[x * t.width + k]];
      out[x] = acc;
    }
  }
}

// out[x] = sum_k w[k] * rows[k][x] over whole rows (contiguous, vectorised); zero-weight rows skipped.
ONYX_ISA_BODY void blendRowsBody(const float* const* rows, const float* weight, int64_t taps, int64_t len,
                                  float* out) {
  const float* first = nullptr;
  float w0 = 0;
  int64_t k = 0;
  for (; k < taps && !first; ++k)
    if (weight[k] != 0) first = rows[k], w0 = weight[k];
  if (!first) {
    std::fill(out, out + len, 0.0f);
    return;
  }
  if (w0 == 1.0f)
    std::copy(first, first + len, out);
  else
    for (int64_t x = 0; x < len; ++x) out[x] = w0 * first[x];
  for (; k < taps; ++k) {
    if (weight[k] == 0) continue;
    const float* r = rows[k];
    const float w = weight[k];
    for (int64_t x = 0; x < len; ++x) out[x] += w * r[x];
  }
}
ONYX_ISA_DISPATCHED(void, blendRows,
                    (const float* const* rows, const float* weight, int64_t taps, int64_t len, float* out),
                    (rows, weight, taps, len, out))

struct PlaneResize {
  const AxisTable& rowsT;  // vertical taps, per output row
  const AxisTable& colsT;  // horizontal taps, per output column
  int64_t inH, inW, outH, outW;
  bool horizontalFirst;

  // Output rows [r0, r1) of one plane.
  void run(const float* src, float* dst, int64_t r0, int64_t r1, std::vector<float>& scratch) const {
    std::vector<const float*> rows(size_t(rowsT.width));
    if (horizontalFirst) {
      // Interpolate each source row these output rows read once, into scratch (row lo..hi, outW wide).
      int64_t lo = inH, hi = -1;
      for (int64_t r = r0; r < r1; ++r)
        lo = std::min(lo, rowsT.lowest(r)), hi = std::max(hi, rowsT.highest(r));
      scratch.resize(size_t((hi - lo + 1) * outW));
      for (int64_t i = lo; i <= hi; ++i)
        interpolateRow(src + i * inW, colsT, outW, scratch.data() + (i - lo) * outW);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t k = 0; k < rowsT.width; ++k)
          rows[size_t(k)] = scratch.data() + (rowsT.index[size_t(r * rowsT.width + k)] - lo) * outW;
        blendRows(rows.data(), &rowsT.weight[size_t(r * rowsT.width)], rowsT.width, outW, dst + r * outW);
      }
    } else {
      scratch.resize(size_t(inW));
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t k = 0; k < rowsT.width; ++k)
          rows[size_t(k)] = src + rowsT.index[size_t(r * rowsT.width + k)] * inW;
        blendRows(rows.data(), &rowsT.weight[size_t(r * rowsT.width)], rowsT.width, inW, scratch.data());
        interpolateRow(scratch.data(), colsT, outW, dst + r * outW);
      }
    }
  }
};

Expected<void> resizeSeparable(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  if (x.dtype() != DataType::Float || x.rank() < 2 || x.count() == 0) return runReferenceKernel(ctx);
  auto plan = planResize(ctx, x);
  if (!plan) return plan.error();
  const int64_t rank = x.rank();
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (!plan->keepsDim(size_t(d), x.dim(d))) return runReferenceKernel(ctx);
  auto rowsT = flattenTaps(plan->taps[size_t(rank - 2)]);
  auto colsT = flattenTaps(plan->taps[size_t(rank - 1)]);
  if (!rowsT || !colsT) return runReferenceKernel(ctx);
  auto y = ctx.allocateOutput(0, DataType::Float, plan->outDims);
  if (!y) return y.error();
  const int64_t inH = x.dim(rank - 2), inW = x.dim(rank - 1);
  const int64_t outH = plan->outDims[size_t(rank - 2)], outW = plan->outDims[size_t(rank - 1)];
  const int64_t planes = x.count() / (inH * inW);
  if (outH == 0 || outW == 0) return {};
  // Multiply-adds of each order, a gathered tap counted twice a contiguous one.
  const int64_t horizontalCost = 2 * inH * outW * colsT->width + outH * outW * rowsT->width;
  const int64_t verticalCost = outH * inW * rowsT->width + 2 * outH * outW * colsT->width;
  PlaneResize resize{*rowsT, *colsT, inH, inW, outH, outW, horizontalCost <= verticalCost};
  // Chunks of output rows: enough per chunk to reuse interpolated source rows, enough chunks for the threads.
  const int64_t rowsPerChunk = std::clamp<int64_t>(16384 / std::max<int64_t>(outW, 1), 1, outH);
  const int64_t chunksPerPlane = (outH + rowsPerChunk - 1) / rowsPerChunk;
  const float* src = x.data<float>();
  float* dst = (*y)->data<float>();
  ctx.parallelFor(planes * chunksPerPlane, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch;
    for (int64_t c = begin; c < end; ++c) {
      const int64_t plane = c / chunksPerPlane, r0 = (c % chunksPerPlane) * rowsPerChunk;
      resize.run(src + plane * inH * inW, dst + plane * outH * outW, r0, std::min(outH, r0 + rowsPerChunk),
                 scratch);
    }
  });
  return {};
}

}  // namespace

void registerResizeFastCpuKernels(KernelRegistry& r) {
  for (auto [op, since] : {std::pair<const char*, int>{"Resize", 10}, {"Upsample", 7}}) {
    KernelDef def = kernel(op, resizeSeparable, since);
    def.variant = "fast";
    def.isaDispatched = true;
    def.priority = 10;
    r.add(std::move(def));
  }
}

}  // namespace onyx::exec
