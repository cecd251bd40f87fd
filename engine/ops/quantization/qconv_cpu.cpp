// Integer convolutions: ConvInteger (int32 accumulators) and QLinearConv (requantized 8-bit output).
// Padding contributes the zero point, i.e. nothing once the zero point is subtracted.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "exec/kernel_util.h"
#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

bool isEightBit(DataType dtype) {
  return dtype == DataType::Int8 || dtype == DataType::Uint8;
}

struct ConvGeometry {
  int64_t batch = 0, inChannels = 0, outChannels = 0, group = 1;
  Dims inSpatial, kernel, outSpatial;
  std::vector<int64_t> strides, dilations, padsBegin;
};

Expected<ConvGeometry> convGeometry(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                    int weightIndex) {
  if (x.rank() < 3 || w.rank() != x.rank())
    return ctx.error("needs input and weights of the same rank (3 or more), got " + x.describe() + " and " +
                     w.describe());
  ConvGeometry g;
  size_t spatial = size_t(x.rank() - 2);
  g.batch = x.dim(0);
  g.inChannels = x.dim(1);
  g.outChannels = w.dim(0);
  g.group = ctx.attrInt("group", 1);
  if (g.group <= 0 || g.inChannels % g.group != 0 || g.outChannels % g.group != 0 ||
      g.inChannels / g.group != w.dim(1))  // w.dim(1) * group may overflow
    return ctx.error("weights " + w.describe() + " do not match input " + x.describe() + " with group " +
                         std::to_string(g.group),
                     weightIndex);
  g.inSpatial.assign(x.dims().begin() + 2, x.dims().end());
  g.kernel.assign(w.dims().begin() + 2, w.dims().end());
  g.strides = ctx.attrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  g.dilations = ctx.attrInts("dilations").value_or(std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = ctx.attrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (g.strides.size() != spatial || g.dilations.size() != spatial || pads.size() != 2 * spatial)
    return ctx.error("strides, dilations and pads must match the " + std::to_string(spatial) +
                     " spatial dimensions");
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  g.padsBegin.resize(spatial);
  g.outSpatial.resize(spatial);
  for (size_t d = 0; d < spatial; ++d) {
    if (g.strides[d] <= 0 || g.dilations[d] <= 0) return ctx.error("strides and dilations must be positive");
    // As Conv's windows (exec/cpu/window_geometry.cpp): past 2^31 the arithmetic below overflows int64, and a
    // negative pad would read outside the input.
    constexpr int64_t kLimit = int64_t(1) << 31;
    if (g.strides[d] > kLimit || g.dilations[d] > kLimit || pads[d] < 0 || pads[d] > kLimit ||
        pads[d + spatial] < 0 || pads[d + spatial] > kLimit)
      return ctx.error("strides and dilations must be within 2^31 and pads between 0 and 2^31");
    int64_t span = (g.kernel[d] - 1) * g.dilations[d] + 1;
    int64_t begin = pads[d], end = pads[d + spatial];
    if (autoPad == "VALID") {
      begin = end = 0;
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t out = (g.inSpatial[d] + g.strides[d] - 1) / g.strides[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * g.strides[d] + span - g.inSpatial[d]);
      begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    }
    g.padsBegin[d] = begin;
    int64_t extent = g.inSpatial[d] + begin + end - span;
    if (extent < 0) return ctx.error("kernel is larger than the padded input " + x.describe(), weightIndex);
    g.outSpatial[d] = extent / g.strides[d] + 1;
  }
  return g;
}

// Calls emit(outputIndex, accumulator, outChannel) for every output element; the accumulator is
// sum((x - xZero) * (w - wZero[outChannel])) over the receptive field.
template <class Emit>
void convolve(const ConvGeometry& g, const TensorValue& x, double xZero, const TensorValue& w,
              const TensorValue* wZero, Emit emit) {
  size_t spatial = g.inSpatial.size();
  int64_t inPlane = elementCount(g.inSpatial), outPlane = elementCount(g.outSpatial);
  int64_t kernelPlane = elementCount(g.kernel);
  int64_t inPerGroup = g.inChannels / g.group, outPerGroup = g.outChannels / g.group;
  std::vector<int64_t> outPos(spatial), kPos(spatial);
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oc = 0; oc < g.outChannels; ++oc) {
      double wz = wZero && wZero->count() ? wZero->doubleAt(wZero->count() == 1 ? 0 : oc) : 0.0;
      int64_t firstIn = oc / outPerGroup * inPerGroup;
      for (int64_t o = 0; o < outPlane; ++o) {
        for (int64_t d = int64_t(spatial) - 1, rest = o; d >= 0; --d) {
          outPos[size_t(d)] = rest % g.outSpatial[size_t(d)];
          rest /= g.outSpatial[size_t(d)];
        }
        double acc = 0;
        for (int64_t kIndex = 0; kIndex < kernelPlane; ++kIndex) {
          int64_t inOffset = 0;
          bool inside = true;
          for (int64_t d = int64_t(spatial) - 1, rest = kIndex, stride = 1; d >= 0; --d) {
            size_t du = size_t(d);
            int64_t k = rest % g.kernel[du];
            rest /= g.kernel[du];
            int64_t pos = outPos[du] * g.strides[du] - g.padsBegin[du] + k * g.dilations[du];
            if (pos < 0 || pos >= g.inSpatial[du]) inside = false;
            inOffset += pos * stride;
            stride *= g.inSpatial[du];
          }
          if (!inside) continue;
          for (int64_t c = 0; c < inPerGroup; ++c) {
            double xv = x.doubleAt((n * g.inChannels + firstIn + c) * inPlane + inOffset) - xZero;
            double wv = w.doubleAt((oc * inPerGroup + c) * kernelPlane + kIndex) - wz;
            acc += xv * wv;
          }
        }
        emit((n * g.outChannels + oc) * outPlane + o, acc, oc);
      }
    }
}

Dims outputDims(const ConvGeometry& g) {
  Dims dims{g.batch, g.outChannels};
  dims.insert(dims.end(), g.outSpatial.begin(), g.outSpatial.end());
  return dims;
}

// w's zero point is read per output channel, or once when it has one element (fuzz_run: a zero point of
// another length read past its end under ASan).
// A zero point has its tensor's type (ONNX's T1/T2): one of another type is read as doubles, and a float
// NaN or 1e30 then overflowed the int32 accumulator's conversion.
Expected<void> checkZeroType(const KernelContext& ctx, const TensorValue& zero, const TensorValue& of, int index) {
  if (!zero.empty() && zero.dtype() != of.dtype())
    return ctx.error("zero point " + zero.describe() + " must have the type of " + of.describe(), index);
  return {};
}

Expected<void> checkWeightZero(const KernelContext& ctx, const TensorValue& wZero, int64_t outChannels, int index) {
  if (!wZero.empty() && wZero.count() != 1 && wZero.count() != outChannels)
    return ctx.error("w_zero_point " + wZero.describe() + " must have one element or one per output channel (" +
                         std::to_string(outChannels) + ")",
                     index);
  return {};
}

double scalarOr(const TensorValue& t, double fallback) {
  return t.empty() || !t.count() ? fallback : t.doubleAt(0);
}

Expected<void> convIntegerKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto w = ctx.requireTensor(1);
  if (!w) return w.error();
  if (!isEightBit((*x)->dtype())) return ctx.unsupportedType(0);
  if (!isEightBit((*w)->dtype())) return ctx.unsupportedType(1);
  auto g = convGeometry(ctx, **x, **w, 1);
  if (!g) return g.error();
  auto y = ctx.allocateOutput(0, DataType::Int32, outputDims(*g));
  if (!y) return y.error();
  int32_t* out = (*y)->data<int32_t>();
  const TensorValue& wZero = ctx.input(3);
  if (auto ok = checkWeightZero(ctx, wZero, g->outChannels, 3); !ok) return ok.error();
  for (auto [zero, of, index] : {std::tuple{&ctx.input(2), *x, 2}, {&wZero, *w, 3}})
    if (auto typed = checkZeroType(ctx, *zero, *of, index); !typed) return typed.error();
  // int32 accumulation wraps, as ONNX Runtime's does; through int64, where the double sum is exact (a zero
  // point of another type than x, 1e30 or NaN, saturates first).
  convolve(*g, **x, scalarOr(ctx.input(2), 0.0), **w, wZero.empty() ? nullptr : &wZero,
           [&](int64_t i, double acc, int64_t) { out[i] = int32_t(saturateToInteger<int64_t>(acc)); });
  return {};
}

Expected<void> qlinearConvKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto w = ctx.requireTensor(3);
  if (!w) return w.error();
  for (int index : {1, 4, 6}) {
    if (auto t = ctx.requireTensor(index); !t) return t.error();
  }
  if (!isEightBit((*x)->dtype())) return ctx.unsupportedType(0);
  if (!isEightBit((*w)->dtype())) return ctx.unsupportedType(3);
  auto g = convGeometry(ctx, **x, **w, 3);
  if (!g) return g.error();
  const TensorValue &xScale = ctx.input(1), &wScale = ctx.input(4), &wZero = ctx.input(5),
                    &yScale = ctx.input(6), &yZero = ctx.input(7), &bias = ctx.input(8);
  if (wScale.count() != 1 && wScale.count() != g->outChannels)
    return ctx.error("must have one element or one per output channel", 4);
  if (!bias.empty() && bias.count() != g->outChannels)
    return ctx.error("must have one element per output channel", 8);
  if (auto ok = checkWeightZero(ctx, wZero, g->outChannels, 5); !ok) return ok.error();
  for (auto [zero, of, index] : {std::tuple{&ctx.input(2), *x, 2}, {&wZero, *w, 5}})
    if (auto typed = checkZeroType(ctx, *zero, *of, index); !typed) return typed.error();
  if (xScale.count() != 1) return ctx.error("x_scale " + xScale.describe() + " must have one element", 1);
  if (yScale.count() != 1) return ctx.error("y_scale " + yScale.describe() + " must have one element", 6);
  DataType outType = yZero.empty() ? (*x)->dtype() : yZero.dtype();
  if (!isEightBit(outType)) return ctx.unsupportedType(7);
  double lo = outType == DataType::Uint8 ? 0.0 : -128.0, hi = outType == DataType::Uint8 ? 255.0 : 127.0;
  auto y = ctx.allocateOutput(0, outType, outputDims(*g));
  if (!y) return y.error();
  double sx = xScale.doubleAt(0), sy = yScale.doubleAt(0), zy = scalarOr(yZero, 0.0);
  convolve(*g, **x, scalarOr(ctx.input(2), 0.0), **w, wZero.empty() ? nullptr : &wZero,
           [&](int64_t i, double acc, int64_t oc) {
             if (!bias.empty()) acc += bias.doubleAt(oc);
             double sw = wScale.doubleAt(wScale.count() == 1 ? 0 : oc);
             double v = clampOrZero(std::nearbyint(acc * (sx * sw / sy)) + zy, lo, hi);
             if (outType == DataType::Uint8)
               (*y)->data<uint8_t>()[i] = uint8_t(v);
             else
               (*y)->data<int8_t>()[i] = int8_t(v);
           });
  return {};
}

}  // namespace

void registerQConvCpuKernels(KernelRegistry& registry) {
  registry.add(kernel("ConvInteger", convIntegerKernel, 10));
  registry.add(kernel("QLinearConv", qlinearConvKernel, 10));
}

}  // namespace onyx::exec
