// Resize (and Upsample): nearest and (multi-)linear modes with every coordinate transformation mode except
// tf_crop_and_resize's extrapolation; sizes or scales, optional axes.
#include <cmath>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

double sourceCoord(const std::string& mode, double out, double scale, int64_t inLen, int64_t outLen) {
  if (mode == "asymmetric") return out / scale;
  if (mode == "align_corners") return outLen > 1 ? out * double(inLen - 1) / double(outLen - 1) : 0.0;
  if (mode == "pytorch_half_pixel") return outLen > 1 ? (out + 0.5) / scale - 0.5 : 0.0;
  if (mode == "half_pixel_symmetric") {
    double adjustment = double(outLen) / (scale * double(inLen));
    double center = double(inLen) / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (out + 0.5) / scale - 0.5;
  }
  return (out + 0.5) / scale - 0.5;  // half_pixel
}

int64_t nearestIndex(const std::string& mode, double x, bool downsampling) {
  if (mode == "floor") return int64_t(std::floor(x));
  if (mode == "ceil") return int64_t(std::ceil(x));
  if (mode == "round_prefer_ceil") return int64_t(std::floor(x + 0.5));
  if (x == std::floor(x) + 0.5) return int64_t(std::floor(x));  // round_prefer_floor on ties
  (void)downsampling;
  return int64_t(std::round(x));
}

Expected<void> resizeKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
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
  if (mode == "cubic") return ctx.error("cubic mode is not supported; use linear or nearest");
  if (coordMode == "tf_crop_and_resize") return ctx.error("tf_crop_and_resize is not supported");
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
  if (!sizesT.empty() && sizesT.count() > 0) {
    if (sizesT.count() != int64_t(axes.size()))
      return ctx.error("sizes has " + std::to_string(sizesT.count()) + " entries for " +
                           std::to_string(axes.size()) + " axes",
                       int(sizesInput));
    double common = keepAspect == "not_larger" ? 1e300 : 0.0;
    for (size_t i = 0; i < axes.size(); ++i) {
      auto a = normalizeAxis(axes[i], rank);
      if (!a) return ctx.error("axis out of range", 0);
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
        outDims[a] = int64_t(std::round(double(x.dim(int64_t(a))) * common));
      }
  } else if (!scalesT.empty() && scalesT.count() > 0) {
    if (scalesT.count() != int64_t(axes.size()))
      return ctx.error("scales has " + std::to_string(scalesT.count()) + " entries for " +
                           std::to_string(axes.size()) + " axes",
                       int(scalesInput));
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t a = size_t(*normalizeAxis(axes[i], rank));
      scales[a] = scalesT.doubleAt(int64_t(i));
      if (scales[a] <= 0) return ctx.error("scales must be positive", int(scalesInput));
      outDims[a] = int64_t(std::floor(double(x.dim(int64_t(a))) * scales[a]));
    }
  } else if (auto s = ctx.attrFloats("scales")) {
    for (int64_t d = 0; d < rank && size_t(d) < s->size(); ++d) {
      scales[size_t(d)] = (*s)[size_t(d)];
      outDims[size_t(d)] = int64_t(std::floor(double(x.dim(d)) * scales[size_t(d)]));
    }
  } else {
    return ctx.error("needs scales or sizes");
  }
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  // Per dim: for each output index, the two source indices and the weight of the second.
  std::vector<std::vector<int64_t>> lo(static_cast<size_t>(rank)), hi(static_cast<size_t>(rank));
  std::vector<std::vector<double>> frac(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t inLen = x.dim(d), outLen = outDims[size_t(d)];
    for (int64_t o = 0; o < outLen; ++o) {
      if (inLen == outLen && scales[size_t(d)] == 1.0) {
        lo[size_t(d)].push_back(o);
        hi[size_t(d)].push_back(o);
        frac[size_t(d)].push_back(0);
        continue;
      }
      double src = sourceCoord(coordMode, double(o), scales[size_t(d)], inLen, outLen);
      if (mode == "nearest") {
        int64_t i = std::clamp<int64_t>(nearestIndex(nearestMode, src, scales[size_t(d)] < 1), 0, inLen - 1);
        lo[size_t(d)].push_back(i);
        hi[size_t(d)].push_back(i);
        frac[size_t(d)].push_back(0);
      } else {
        src = std::clamp(src, 0.0, double(inLen - 1));
        int64_t i0 = int64_t(std::floor(src));
        int64_t i1 = std::min(i0 + 1, inLen - 1);
        lo[size_t(d)].push_back(i0);
        hi[size_t(d)].push_back(i1);
        frac[size_t(d)].push_back(src - double(i0));
      }
    }
  }
  auto inStrides = rowMajorStrides(x.dims());
  std::vector<int64_t> varying;
  for (int64_t d = 0; d < rank; ++d)
    if (mode != "nearest" && x.dim(d) != outDims[size_t(d)]) varying.push_back(d);
  bool ok = dispatchType<kNumbers>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.data<T>();
    T* dst = (*y)->template data<T>();
    std::vector<int64_t> pos(static_cast<size_t>(rank));
    for (int64_t o = 0; o < (*y)->count(); ++o) {
      int64_t rest = o;
      for (int64_t d = rank - 1; d >= 0; --d) {
        pos[size_t(d)] = rest % outDims[size_t(d)];
        rest /= outDims[size_t(d)];
      }
      if (varying.empty()) {
        int64_t off = 0;
        for (int64_t d = 0; d < rank; ++d)
          off += lo[size_t(d)][size_t(pos[size_t(d)])] * inStrides[size_t(d)];
        dst[o] = src[off];
        continue;
      }
      double acc = 0;
      int64_t corners = int64_t(1) << varying.size();
      for (int64_t corner = 0; corner < corners; ++corner) {
        double weight = 1;
        int64_t off = 0;
        size_t vi = 0;
        for (int64_t d = 0; d < rank; ++d) {
          size_t p = size_t(pos[size_t(d)]);
          if (vi < varying.size() && varying[vi] == d) {
            bool upper = (corner >> vi) & 1;
            weight *= upper ? frac[size_t(d)][p] : 1 - frac[size_t(d)][p];
            off += (upper ? hi[size_t(d)][p] : lo[size_t(d)][p]) * inStrides[size_t(d)];
            ++vi;
          } else {
            off += lo[size_t(d)][p] * inStrides[size_t(d)];
          }
        }
        if (weight != 0) acc += weight * double(ComputeType<T>(src[off]));
      }
      if constexpr (std::is_integral_v<T>)
        dst[o] = T(std::llround(acc));
      else
        dst[o] = fromCompute<T>(ComputeType<T>(acc));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerResizeCpuKernels(KernelRegistry& r) {
  r.add(kernel("Resize", resizeKernel, 10));
  r.add(kernel("Upsample", resizeKernel, 7));
}

}  // namespace onyx::exec
