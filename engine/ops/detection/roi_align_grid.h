#pragma once
// RoiAlign's geometry of one region, shared by its two kernels: the region in the input's pixel coordinates
// and its samples per bin along each side (sampling_ratio, or without one ceil(extent / bins) as ONNX Runtime
// takes it; 0 for a region of negative extent, which samples nothing). nullopt for a region with a coordinate
// that is not finite or more than kMaxRoiSamplesPerBin samples per bin: converting such a count to an integer
// is undefined (fuzz_run: a NaN region under UBSan) and sampling it would never end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace onyx::exec {

constexpr int64_t kMaxRoiSamplesPerBin = int64_t(1) << 16;

struct RoiBox {
  double x1 = 0, y1 = 0, height = 0, width = 0;  // top-left corner and extent, in pixels
  int64_t gridH = 0, gridW = 0;                  // samples per bin along each side
};

namespace roi_align_detail {

inline std::optional<int64_t> gridSide(double extent, int64_t bins, int64_t samplingRatio) {
  if (!std::isfinite(extent)) return std::nullopt;
  const double side = samplingRatio > 0 ? double(samplingRatio) : std::ceil(extent / double(bins));
  if (side > double(kMaxRoiSamplesPerBin)) return std::nullopt;
  // Compared before converting: a region of extent -1e19 gives a count no int64 holds (fuzz_run, UBSan).
  return side > 0 ? int64_t(side) : 0;
}

}  // namespace roi_align_detail

// `roi` is [x1, y1, x2, y2] as the rois input holds it. Without half_pixel (opset 10's output_half_pixel) the
// region is at least one pixel each way.
inline std::optional<RoiBox> roiBox(const double roi[4], double spatialScale, bool halfPixel, int64_t outH,
                                    int64_t outW, int64_t samplingRatio) {
  const double offset = halfPixel ? 0.5 : 0.0;
  RoiBox box;
  box.x1 = roi[0] * spatialScale - offset;
  box.y1 = roi[1] * spatialScale - offset;
  box.width = roi[2] * spatialScale - offset - box.x1;
  box.height = roi[3] * spatialScale - offset - box.y1;
  if (!halfPixel) {
    box.width = std::max(box.width, 1.0);
    box.height = std::max(box.height, 1.0);
  }
  const auto gridH = roi_align_detail::gridSide(box.height, outH, samplingRatio);
  const auto gridW = roi_align_detail::gridSide(box.width, outW, samplingRatio);
  if (!std::isfinite(box.x1) || !std::isfinite(box.y1) || !gridH || !gridW || *gridH * *gridW > kMaxRoiSamplesPerBin)
    return std::nullopt;
  box.gridH = *gridH;
  box.gridW = *gridW;
  return box;
}

}  // namespace onyx::exec
