// RoiAlign of float32: per region, every bin's bilinear samples (four source offsets and weights each) are
// computed once and applied to all channels at once, as vectors over a channels-last copy of the map, in
// float; regions run in parallel. The reference
// (roi_align_cpu.cpp) recomputes each sample's position and weights per channel in double, which made
// fasterrcnn's MultiScaleRoIAlign (1000 regions, 256 channels, 7 x 7 bins of 2 x 2 samples) the bulk of its
// head. Other types go to the reference, which stays the oracle.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "exec/cpu/isa_dispatch.h"
#include "ops/detection/roi_align_grid.h"

namespace onyx::exec {
namespace {

struct Sample {
  int64_t offset[4];
  float weight[4];
};

// One axis' sample positions: the two neighbours and their weights, or `inside` false beyond one pixel.
struct AxisSample {
  int64_t low = 0, high = 0;
  double lowWeight = 0, highWeight = 0;
  bool inside = false;
};

AxisSample axisSample(double s, int64_t length) {
  AxisSample a;
  if (s < -1.0 || s > double(length)) return a;
  a.inside = true;
  s = std::max(s, 0.0);
  a.low = int64_t(s);
  a.high = a.low + 1;
  if (a.low >= length - 1) a.high = a.low = length - 1, s = double(a.low);
  double l = s - double(a.low);
  a.lowWeight = 1 - l;
  a.highWeight = l;
  return a;
}

struct RoiGeometry {
  int64_t outH, outW, samplingRatio;
  double spatialScale;
  bool halfPixel;
  int64_t height, width;

  std::optional<RoiBox> box(const double* roi) const {
    return roiBox(roi, spatialScale, halfPixel, outH, outW, samplingRatio);
  }

  // Every bin's samples of one region, bin after bin (grid samples each); returns samples per bin. Regions
  // without a box never get here (roiAlignPrecomputed leaves them to the reference's error).
  int64_t samples(const double* roi, std::vector<Sample>& out) const {
    const RoiBox region = *box(roi);
    const double x1 = region.x1, y1 = region.y1;
    const double binH = region.height / double(outH), binW = region.width / double(outW);
    const int64_t gridH = region.gridH, gridW = region.gridW;
    std::vector<AxisSample> ys(size_t(outH * gridH)), xs(size_t(outW * gridW));
    for (int64_t ph = 0; ph < outH; ++ph)
      for (int64_t iy = 0; iy < gridH; ++iy)
        ys[size_t(ph * gridH + iy)] =
            axisSample(y1 + double(ph) * binH + (double(iy) + 0.5) * binH / double(gridH), height);
    for (int64_t pw = 0; pw < outW; ++pw)
      for (int64_t ix = 0; ix < gridW; ++ix)
        xs[size_t(pw * gridW + ix)] =
            axisSample(x1 + double(pw) * binW + (double(ix) + 0.5) * binW / double(gridW), width);
    out.clear();
    for (int64_t ph = 0; ph < outH; ++ph)
      for (int64_t pw = 0; pw < outW; ++pw)
        for (int64_t iy = 0; iy < gridH; ++iy)
          for (int64_t ix = 0; ix < gridW; ++ix) {
            const AxisSample& sy = ys[size_t(ph * gridH + iy)];
            const AxisSample& sx = xs[size_t(pw * gridW + ix)];
            Sample s{{0, 0, 0, 0}, {0, 0, 0, 0}};
            if (sy.inside && sx.inside) {
              s.offset[0] = sy.low * width + sx.low, s.offset[1] = sy.low * width + sx.high;
              s.offset[2] = sy.high * width + sx.low, s.offset[3] = sy.high * width + sx.high;
              s.weight[0] = float(sy.lowWeight * sx.lowWeight),
              s.weight[1] = float(sy.lowWeight * sx.highWeight);
              s.weight[2] = float(sy.highWeight * sx.lowWeight),
              s.weight[3] = float(sy.highWeight * sx.highWeight);
            }
            out.push_back(s);
          }
    return gridH * gridW;
  }
};

// One region's bins over channels-last pixels (`channels` contiguous floats each): every sample's four
// neighbours weighted into a vector of all channels at once. `bins` receives [bin][channel].
ONYX_ISA_BODY void alignRegionBody(const float* pixels, int64_t channels, const Sample* samples,
                                    int64_t perBin, int64_t binCount, bool average, float* bins) {
  const float scale = 1.0f / float(std::max<int64_t>(perBin, 1));
  for (int64_t b = 0; b < binCount; ++b) {
    float* out = bins + b * channels;
    std::fill(out, out + channels, 0.0f);
    for (int64_t i = 0; i < perBin; ++i) {
      const Sample& s = samples[b * perBin + i];
      const float w0 = s.weight[0], w1 = s.weight[1], w2 = s.weight[2], w3 = s.weight[3];
      const float* p0 = pixels + s.offset[0] * channels;
      const float* p1 = pixels + s.offset[1] * channels;
      const float* p2 = pixels + s.offset[2] * channels;
      const float* p3 = pixels + s.offset[3] * channels;
      if (average) {
        for (int64_t c = 0; c < channels; ++c) out[c] += w0 * p0[c] + w1 * p1[c] + w2 * p2[c] + w3 * p3[c];
      } else {
        // As the reference: the largest weighted neighbour of each sample, the first sample's as the start.
        for (int64_t c = 0; c < channels; ++c) {
          float m = std::max(std::max(std::max(w0 * p0[c], w1 * p1[c]), w2 * p2[c]), w3 * p3[c]);
          out[c] = i == 0 ? m : std::max(out[c], m);
        }
      }
    }
    if (average)
      for (int64_t c = 0; c < channels; ++c) out[c] *= scale;
  }
}
ONYX_ISA_DISPATCHED(void, alignRegion,
                    (const float* pixels, int64_t channels, const Sample* samples, int64_t perBin,
                     int64_t binCount, bool average, float* bins),
                    (pixels, channels, samples, perBin, binCount, average, bins))

Expected<void> roiAlignPrecomputed(KernelContext& ctx) {
  const TensorValue& in = ctx.input(0);
  const TensorValue& rois = ctx.input(1);
  const TensorValue& batchIndex = ctx.input(2);
  // Everything unusual (types, ranks, bad attributes or indices) gets the reference's checks and messages.
  std::string mode = ctx.attrString("mode", "avg");
  int64_t outH = ctx.attrInt("output_height", 1), outW = ctx.attrInt("output_width", 1);
  if (in.empty() || rois.empty() || batchIndex.empty() || in.dtype() != DataType::Float || in.rank() != 4 ||
      rois.rank() != 2 || rois.dim(1) != 4 || batchIndex.count() != rois.dim(0) ||
      (mode != "avg" && mode != "max") || outH < 1 || outW < 1 || in.dim(2) == 0 || in.dim(3) == 0)
    return runReferenceKernel(ctx);
  const int64_t regions = rois.dim(0), batch = in.dim(0), channels = in.dim(1);
  std::vector<double> boxes(size_t(regions * 4));
  std::vector<int64_t> batches(static_cast<size_t>(regions));
  for (int64_t n = 0; n < regions; ++n) {
    batches[size_t(n)] = batchIndex.intAt(n);
    if (batches[size_t(n)] < 0 || batches[size_t(n)] >= batch) return runReferenceKernel(ctx);
    for (int64_t k = 0; k < 4; ++k) boxes[size_t(n * 4 + k)] = rois.doubleAt(n * 4 + k);
  }
  // Opset 10 behaves as output_half_pixel (no half-pixel shift, regions at least one pixel).
  bool halfPixel = ctx.attrString("coordinate_transformation_mode",
                                  ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel") == "half_pixel";
  RoiGeometry geometry{
      outH,      outW,     ctx.attrInt("sampling_ratio", 0), ctx.attrFloat("spatial_scale", 1.0f), halfPixel,
      in.dim(2), in.dim(3)};
  for (int64_t n = 0; n < regions; ++n)
    if (!geometry.box(&boxes[size_t(n * 4)])) return runReferenceKernel(ctx);
  auto y = ctx.allocateOutput(0, DataType::Float, {regions, channels, outH, outW});
  if (!y) return y.error();
  const float* src = in.data<float>();
  float* dst = (*y)->data<float>();
  const int64_t height = in.dim(2), width = in.dim(3), planeSize = height * width, bins = outH * outW;
  const bool average = mode == "avg";
  // The map channels-last once, so each sample's neighbours are contiguous vectors of every channel.
  std::vector<float> pixels(size_t(in.count()));
  ctx.parallelFor(batch * height, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / height, h = row % height;
      float* out = pixels.data() + row * width * channels;
      for (int64_t c = 0; c < channels; ++c) {
        const float* plane = src + (b * channels + c) * planeSize + h * width;
        for (int64_t w = 0; w < width; ++w) out[w * channels + c] = plane[w];
      }
    }
  });
  ctx.parallelFor(regions, 1, [&](int64_t begin, int64_t end) {
    std::vector<Sample> samples;
    std::vector<float> binValues(size_t(bins * channels));
    for (int64_t n = begin; n < end; ++n) {
      int64_t perBin = geometry.samples(&boxes[size_t(n * 4)], samples);
      alignRegion(pixels.data() + batches[size_t(n)] * planeSize * channels, channels, samples.data(), perBin,
                  bins, average, binValues.data());
      float* out = dst + n * channels * bins;
      // [bin][channel] to [channel][bin], 16 channels (one cache line of each bin) at a time: the output
      // written in order, the bins' lines read from L1.
      for (int64_t c0 = 0; c0 < channels; c0 += 16)
        for (int64_t c = c0; c < std::min(channels, c0 + 16); ++c)
          for (int64_t b = 0; b < bins; ++b) out[c * bins + b] = binValues[size_t(b * channels + c)];
    }
  });
  return {};
}

}  // namespace

void registerRoiAlignFastCpuKernels(KernelRegistry& r) {
  KernelDef def = kernel("RoiAlign", roiAlignPrecomputed, 10);
  def.variant = "fast";
  def.isaDispatched = true;
  def.priority = 10;
  r.add(std::move(def));
}

}  // namespace onyx::exec
