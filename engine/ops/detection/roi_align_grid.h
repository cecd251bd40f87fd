#pragma once
// RoiAlign's samples per bin along one side, shared by its two kernels: sampling_ratio, or without one
// ceil(region extent / bins) as ONNX Runtime takes it, 0 for a region of negative extent (it samples nothing).
// nullopt for an extent that is not finite or a grid past kMaxRoiSamplesPerBin: converting such a count to an
// integer is undefined (fuzz_run: a NaN region under UBSan) and sampling it would never end.
#include <cmath>
#include <cstdint>
#include <optional>

namespace onyx::exec {

constexpr int64_t kMaxRoiSamplesPerBin = int64_t(1) << 16;

inline std::optional<int64_t> roiGridSide(double extent, int64_t bins, int64_t samplingRatio) {
  if (!std::isfinite(extent)) return std::nullopt;
  if (samplingRatio > 0) return samplingRatio;
  const double side = std::ceil(extent / double(bins));
  if (side > double(kMaxRoiSamplesPerBin)) return std::nullopt;
  return std::max<int64_t>(int64_t(side), 0);
}

}  // namespace onyx::exec
