// RoiAlign: average (or max) of bilinear samples on a regular grid inside each output bin of each region.
#include <algorithm>
#include <cmath>
#include <string>

#include "exec/kernel_util.h"
#include "ops/detection/roi_align_grid.h"

namespace onyx::exec {
namespace {

Expected<void> roiAlignKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto r = ctx.requireTensor(1);
  if (!r) return r.error();
  auto bi = ctx.requireTensor(2);
  if (!bi) return bi.error();
  const TensorValue& in = **x;
  const TensorValue& rois = **r;
  if (in.rank() != 4) return ctx.error("X must be [N, C, H, W], got " + in.describe(), 0);
  if (rois.rank() != 2 || rois.dim(1) != 4)
    return ctx.error("rois must be [R, 4], got " + rois.describe(), 1);
  int64_t regions = rois.dim(0);
  if ((*bi)->count() != regions) return ctx.error("batch_indices must have one entry per region", 2);
  std::string mode = ctx.attrString("mode", "avg");
  if (mode != "avg" && mode != "max") return ctx.error("mode must be avg or max, got '" + mode + "'");
  int64_t outH = ctx.attrInt("output_height", 1), outW = ctx.attrInt("output_width", 1);
  int64_t samplingRatio = ctx.attrInt("sampling_ratio", 0);
  double spatialScale = ctx.attrFloat("spatial_scale", 1.0f);
  // Opset 10 behaves as output_half_pixel (no half-pixel shift, regions at least one pixel).
  bool halfPixel = ctx.attrString("coordinate_transformation_mode",
                                  ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel") == "half_pixel";
  if (outH < 1 || outW < 1) return ctx.error("output_height and output_width must be positive");
  int64_t batch = in.dim(0), channels = in.dim(1), height = in.dim(2), width = in.dim(3);
  auto y = ctx.allocateOutput(0, in.dtype(), {regions, channels, outH, outW});
  if (!y) return y.error();
  int64_t badRegion = -1;
  bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.template data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t n = 0; n < regions; ++n) {
      int64_t b = (*bi)->intAt(n);
      if (b < 0 || b >= batch) continue;  // checked below, after the loop, to keep the lambda simple
      const double corners[4] = {rois.doubleAt(n * 4), rois.doubleAt(n * 4 + 1), rois.doubleAt(n * 4 + 2),
                                 rois.doubleAt(n * 4 + 3)};
      const auto box = roiBox(corners, spatialScale, halfPixel, outH, outW, samplingRatio);
      if (!box) {
        badRegion = n;  // reported below, after the loop, to keep the lambda simple
        return;
      }
      const double x1 = box->x1, y1 = box->y1;
      const double binH = box->height / double(outH), binW = box->width / double(outW);
      const int64_t gridH = box->gridH, gridW = box->gridW;
      double count = double(std::max<int64_t>(gridH * gridW, 1));
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = src + (b * channels + c) * height * width;
        auto at = [&](int64_t yy, int64_t xx) { return double(ComputeType<T>(plane[yy * width + xx])); };
        for (int64_t ph = 0; ph < outH; ++ph)
          for (int64_t pw = 0; pw < outW; ++pw) {
            double sum = 0, best = 0;
            bool first = true;
            for (int64_t iy = 0; iy < gridH; ++iy) {
              double sy = y1 + double(ph) * binH + (double(iy) + 0.5) * binH / double(gridH);
              for (int64_t ix = 0; ix < gridW; ++ix) {
                double sx = x1 + double(pw) * binW + (double(ix) + 0.5) * binW / double(gridW);
                // Bilinear weights of the four neighbours; samples beyond one pixel outside count as 0.
                double w[4] = {0, 0, 0, 0}, v[4] = {0, 0, 0, 0};
                // An image of height or width 0 has no pixel to sample (fuzz_run: read before its start).
                if (height > 0 && width > 0 && !(sy < -1.0 || sy > double(height) || sx < -1.0 || sx > double(width))) {
                  double yy = std::max(sy, 0.0), xx = std::max(sx, 0.0);
                  auto yLow = int64_t(yy), xLow = int64_t(xx);
                  int64_t yHigh = yLow + 1, xHigh = xLow + 1;
                  if (yLow >= height - 1) yHigh = yLow = height - 1, yy = double(yLow);
                  if (xLow >= width - 1) xHigh = xLow = width - 1, xx = double(xLow);
                  double ly = yy - double(yLow), lx = xx - double(xLow), hy = 1 - ly, hx = 1 - lx;
                  w[0] = hy * hx, w[1] = hy * lx, w[2] = ly * hx, w[3] = ly * lx;
                  v[0] = at(yLow, xLow), v[1] = at(yLow, xHigh), v[2] = at(yHigh, xLow),
                  v[3] = at(yHigh, xHigh);
                }
                if (mode == "avg") {
                  sum += w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3];
                } else {
                  // As ONNX Runtime and the reference: the largest weighted neighbour, not the interpolated
                  // value.
                  double m = std::max({w[0] * v[0], w[1] * v[1], w[2] * v[2], w[3] * v[3]});
                  best = first ? m : std::max(best, m);
                  first = false;
                }
              }
            }
            double result = mode == "avg" ? sum / count : best;
            dst[((n * channels + c) * outH + ph) * outW + pw] = fromCompute<T>(ComputeType<T>(result));
          }
      }
    }
  });
  if (!ok) return ctx.unsupportedType(0);
  if (badRegion >= 0)
    return ctx.error("region " + std::to_string(badRegion) + " has a coordinate that is not finite, or needs more than " +
                         std::to_string(kMaxRoiSamplesPerBin) + " samples per bin; give sampling_ratio", 1);
  for (int64_t n = 0; n < regions; ++n)
    if ((*bi)->intAt(n) < 0 || (*bi)->intAt(n) >= batch)
      return ctx.error("batch index " + std::to_string((*bi)->intAt(n)) + " is out of range", 2);
  return {};
}

}  // namespace

void registerRoiAlignCpuKernels(KernelRegistry& r) {
  r.add(kernel("RoiAlign", roiAlignKernel, 10));
}

}  // namespace onyx::exec
