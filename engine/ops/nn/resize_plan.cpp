// Resize's geometry (resize_plan.h): coordinate transformation, nearest rounding, linear and cubic taps.
#include "ops/nn/resize_plan.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

// An output length from a scale; a product past int64 (scales of 1e30) saturates so the size check reports it
// instead of an undefined float-to-int conversion; a negative one (or -inf, a size over an empty dim) is -1.
int64_t scaledLength(double length) {
  if (!(length < 9.2e18)) return INT64_MAX;
  if (length < 0) return -1;  // a negative size (keep_aspect_ratio_policy of sizes [-2^63, 1]): an error below
  return int64_t(length);
}

double sourceCoord(const std::string& mode, double out, double scale, int64_t inLen, int64_t outLen,
                   double outWidth) {
  if (mode == "asymmetric") return out / scale;
  if (mode == "align_corners") return outWidth == 1 ? 0.0 : out * double(inLen - 1) / (outWidth - 1);
  if (mode == "pytorch_half_pixel") return outWidth == 1 ? -0.5 : (out + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    double adjustment = double(outLen) / outWidth;
    double center = double(inLen) / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (out + 0.5) / scale - 0.5;
  }
  return (out + 0.5) / scale - 0.5;  // half_pixel
}

// A rounded source coordinate as an index, which the caller clamps to the input: a coordinate far outside
// (a scale near 0 or huge) or NaN has no int64 value, and converting it would be undefined (fuzz_run, UBSan).
int64_t coordinateIndex(double rounded) {
  if (std::isnan(rounded)) return 0;
  return int64_t(std::clamp(rounded, -4.0e18, 4.0e18));
}

int64_t nearestIndex(const std::string& mode, double x) {
  if (mode == "floor") return coordinateIndex(std::floor(x));
  if (mode == "ceil") return coordinateIndex(std::ceil(x));
  if (mode == "round_prefer_ceil") return coordinateIndex(std::floor(x + 0.5));
  if (x == std::floor(x) + 0.5) return coordinateIndex(std::floor(x));  // round_prefer_floor on ties
  return coordinateIndex(std::round(x));
}

// Keys' cubic convolution kernel with parameter a.
double cubicKernel(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Linear or cubic taps around source coordinate `src`. Taps sit at base + i, where base + ratio = src with
// ratio in (0, 1]. Antialiasing (downsampling only) stretches the kernel by 1 / scale and normalizes it.
// Out-of-range taps read the edge value, or are dropped (weights renormalized) with exclude_outside.
std::vector<ResizeTap> interpolationTaps(double src, int64_t inLen, double scale, bool cubic, double a,
                                         bool antialias, bool excludeOutside) {
  double base = std::floor(src), ratio = src - base;
  if (ratio == 0) {
    ratio = 1;
    base -= 1;
  }
  double stretch = antialias ? std::min(scale, 1.0) : 1.0;
  double reach = cubic ? 2.0 : 1.0;
  int64_t first = coordinateIndex(std::floor(-reach / stretch) + 1);
  int64_t last = 1 - first;  // inclusive: 2 taps (linear) or 4 (cubic) without antialias
  std::vector<ResizeTap> taps;
  double total = 0;
  for (int64_t i = first; i <= last; ++i) {
    double distance = (double(i) - ratio) * stretch;
    double w = cubic ? cubicKernel(distance, a) : std::max(0.0, 1 - std::abs(distance));
    int64_t index = coordinateIndex(base + double(i));
    if (index < 0 || index >= inLen) {
      if (excludeOutside) continue;
      index = std::clamp<int64_t>(index, 0, inLen - 1);
    }
    taps.push_back({index, w});
    total += w;
  }
  if ((antialias || excludeOutside) && total != 0)
    for (auto& tap : taps) tap.weight /= total;
  return taps;
}

}  // namespace

Expected<ResizePlan> planResize(KernelContext& ctx, const TensorValue& x) {
  int64_t rank = x.rank();
  bool upsample = ctx.node().opType() == "Upsample";
  std::string mode = ctx.attrString("mode", "nearest");
  std::string coordMode =
      ctx.attrString("coordinate_transformation_mode", ctx.opset() < 11 ? "asymmetric" : "half_pixel");
  std::string nearestMode = ctx.attrString("nearest_mode", ctx.opset() < 11 ? "floor" : "round_prefer_floor");
  if (upsample || ctx.opset() < 11) {
    coordMode = "asymmetric";
    nearestMode = "floor";
  }
  std::vector<int64_t> axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{});
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  std::vector<double> scales(static_cast<size_t>(rank), 1.0);
  Dims outDims = x.dims();
  size_t scalesInput = upsample ? 1 : (ctx.opset() < 11 ? 1 : 2);
  size_t sizesInput = 3;
  const TensorValue& sizesT = ctx.input(sizesInput);
  const TensorValue& scalesT = ctx.input(scalesInput);
  std::string keepAspect = ctx.attrString("keep_aspect_ratio_policy", "stretch");
  if (!sizesT.empty() && sizesT.count() > 0 && !scalesT.empty() && scalesT.count() > 0)
    return ctx.error("has both scales and sizes; give one of them (the other empty)", int(sizesInput));
  if (!sizesT.empty() && sizesT.count() > 0) {
    if (sizesT.count() != int64_t(axes.size()))
      return ctx.error("sizes has " + std::to_string(sizesT.count()) + " entries for " +
                           std::to_string(axes.size()) + " axes",
                       int(sizesInput));
    double common = keepAspect == "not_larger" ? 1e300 : 0.0;
    for (size_t i = 0; i < axes.size(); ++i) {
      auto a = normalizeAxis(axes[i], rank);
      if (!a) return ctx.error("axis " + std::to_string(axes[i]) + " is out of range for " + x.describe(), 0);
      double s = double(sizesT.intAt(int64_t(i))) / double(x.dim(*a));
      if (keepAspect == "not_larger") common = std::min(common, s);
      if (keepAspect == "not_smaller") common = std::max(common, s);
      scales[size_t(*a)] = s;
      outDims[size_t(*a)] = sizesT.intAt(int64_t(i));
    }
    if (keepAspect != "stretch")
      for (int64_t a0 : axes) {
        size_t a = size_t(*normalizeAxis(a0, rank));
        scales[a] = common;
        outDims[a] = scaledLength(std::round(double(x.dim(int64_t(a))) * common));
      }
  } else if (!scalesT.empty() && scalesT.count() > 0) {
    if (scalesT.count() != int64_t(axes.size()))
      return ctx.error("scales has " + std::to_string(scalesT.count()) + " entries for " +
                           std::to_string(axes.size()) + " axes",
                       int(scalesInput));
    for (size_t i = 0; i < axes.size(); ++i) {
      auto axis = normalizeAxis(axes[i], rank);  // (fuzz_run: an axis past a scalar's rank under UBSan)
      if (!axis) return ctx.error("axis " + std::to_string(axes[i]) + " is out of range for " + x.describe(), 0);
      size_t a = size_t(*axis);
      scales[a] = scalesT.doubleAt(int64_t(i));
      // NaN and infinity are refused too: they used to reach the size check as a 2^63 dimension.
      if (!(scales[a] > 0) || !std::isfinite(scales[a]))
        return ctx.error("scales must be positive and finite, got " + std::to_string(scales[a]) + " on axis " +
                             std::to_string(a),
                         int(scalesInput));
      outDims[a] = scaledLength(std::floor(double(x.dim(int64_t(a))) * scales[a]));
    }
  } else if (auto s = ctx.attrFloats("scales")) {
    for (int64_t d = 0; d < rank && size_t(d) < s->size(); ++d) {
      scales[size_t(d)] = (*s)[size_t(d)];
      if (!(scales[size_t(d)] > 0) || !std::isfinite(scales[size_t(d)]))
        return ctx.error("scales must be positive and finite, got " + std::to_string(scales[size_t(d)]) +
                         " on axis " + std::to_string(d));
      outDims[size_t(d)] = scaledLength(std::floor(double(x.dim(d)) * scales[size_t(d)]));
    }
  } else {
    return ctx.error("needs scales or sizes");
  }
  // tf_crop_and_resize's region of interest: [starts..., ends...] over `axes`, in normalized coordinates.
  std::vector<double> roiStart(static_cast<size_t>(rank), 0.0), roiEnd(static_cast<size_t>(rank), 1.0);
  if (coordMode == "tf_crop_and_resize") {
    const TensorValue& roi = ctx.input(upsample ? 99 : 1);
    if (roi.empty() || roi.count() != 2 * int64_t(axes.size()))
      return ctx.error("tf_crop_and_resize needs roi with 2 entries per axis", 1);
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t a = size_t(*normalizeAxis(axes[i], rank));
      roiStart[a] = roi.doubleAt(int64_t(i));
      roiEnd[a] = roi.doubleAt(int64_t(i + axes.size()));
      if (!std::isfinite(roiStart[a]) || !std::isfinite(roiEnd[a]))
        return ctx.error("roi has a value that is not finite; give tf_crop_and_resize finite region bounds", 1);
    }
  }
  double cubicA = ctx.attrFloat("cubic_coeff_a", -0.75f);
  bool excludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
  bool antialias = ctx.attrInt("antialias", 0) != 0;
  double extrapolation = ctx.attrFloat("extrapolation_value", 0.0f);
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return ctx.error("mode must be nearest, linear or cubic, got '" + mode + "'");
  // The taps below take memory per output index: check the output's size before building them.
  auto size = checkTensorSize(outDims, int64_t(elementBytes(x.dtype())), "output (from sizes or scales)", "");
  if (!size) return ctx.error(size.error().message);
  // An empty axis has no values to interpolate from: every tap would read past the input (fuzz_run, ASan:
  // [1, 0, 4, 4] resized to sizes with a 1 there).
  for (int64_t d = 0; d < rank; ++d)
    if (x.dim(d) == 0 && outDims[size_t(d)] != 0)
      return ctx.error("cannot resize dim " + std::to_string(d) + " of " + x.describe() + " from 0 to " +
                           std::to_string(outDims[size_t(d)]) + ": it has no values to interpolate",
                       0);
  // Per dim and output index: the source taps and their weights (empty: outside the crop, extrapolate).
  ResizePlan plan;
  plan.outDims = outDims;
  plan.extrapolation = extrapolation;
  auto& taps = plan.taps;
  taps.resize(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t inLen = x.dim(d), outLen = outDims[size_t(d)];
    double scale = scales[size_t(d)];
    auto& dimTaps = taps[size_t(d)];
    dimTaps.resize(static_cast<size_t>(outLen));
    for (int64_t o = 0; o < outLen; ++o) {
      if (inLen == outLen && scale == 1.0 && coordMode != "tf_crop_and_resize") {
        dimTaps[size_t(o)] = {{o, 1.0}};
        continue;
      }
      // The spec measures the output width as scale * input width, which need not be an integer.
      double outWidth = scale * double(inLen);
      double src;
      if (coordMode == "tf_crop_and_resize") {
        double span = (roiEnd[size_t(d)] - roiStart[size_t(d)]) * double(inLen - 1);
        src = outWidth == 1 ? span / 2 : double(o) * span / (outWidth - 1);
        src += roiStart[size_t(d)] * double(inLen - 1);
        if (src < 0 || src > double(inLen - 1)) continue;  // no taps: extrapolation_value
      } else {
        src = sourceCoord(coordMode, double(o), scale, inLen, outLen, outWidth);
      }
      dimTaps[size_t(o)] =
          mode == "nearest"
              ? std::vector<ResizeTap>{{std::clamp<int64_t>(nearestIndex(nearestMode, src), 0, inLen - 1),
                                        1.0}}
              : interpolationTaps(src, inLen, scale, mode == "cubic", cubicA, antialias, excludeOutside);
    }
  }
  return plan;
}

bool ResizePlan::keepsDim(size_t d, int64_t inputSize) const {
  const std::vector<std::vector<ResizeTap>>& dimTaps = taps[d];
  if (int64_t(dimTaps.size()) != inputSize) return false;
  for (size_t o = 0; o < dimTaps.size(); ++o)
    if (dimTaps[o].size() != 1 || dimTaps[o][0].index != int64_t(o) || dimTaps[o][0].weight != 1.0) return false;
  return true;
}

}  // namespace onyx::exec
