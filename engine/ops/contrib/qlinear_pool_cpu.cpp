// The com.microsoft QLinear* pooling and concatenation ops on uint8 or int8 tensors, NCHW or (channels_last)
// NHWC: QLinearAveragePool (AveragePool's windows over dequantized values, averaged in float and requantized
// as ONNX Runtime's kernel does: the zero point added before rounding, and count_include_pad dividing by the
// whole kernel even where a ceil_mode window runs past the padding),
// QLinearGlobalAveragePool (an integer sum per channel, requantized by x_scale / (y_scale * size) as ONNX
// Runtime's MLAS kernel does), QLinearConcat (each input requantized to the output's scale and zero point) and
// QLinearReduceMean.
#include <algorithm>
#include <array>
#include <cmath>

#include "exec/cpu/window_geometry.h"
#include "util/clamp_or_zero.h"
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/qlinear_kernels.h"

namespace onyx::exec::contrib {
namespace {

// Where element (n, c, spatial offset s) lives: [N, C, S] or, channels last, [N, S, C].
struct PlaneLayout {
  int64_t channels = 1, spatial = 1;
  bool channelsLast = false;
  int64_t at(int64_t n, int64_t c, int64_t s) const {
    return channelsLast ? (n * spatial + s) * channels + c : (n * channels + c) * spatial + s;
  }
};

// Inputs X, x_scale, x_zero_point, y_scale, y_zero_point.
struct PoolInputs {
  const TensorValue* x = nullptr;
  ByteType type;
  Quantization qx, qy;
  bool channelsLast = false;
  Dims nchw;  // X's dims with the channels at dim 1
};

Expected<PoolInputs> poolInputs(const KernelContext& ctx) {
  PoolInputs in;
  auto unary = quantizedUnaryInputs(ctx);
  if (!unary) return unary.error();
  in.x = unary->x, in.type = unary->type, in.qx = unary->qx, in.qy = unary->qy;
  if (in.x->rank() < 3) return ctx.error("needs rank >= 3, got " + in.x->describe(), 0);
  in.channelsLast = ctx.attrInt("channels_last", 0) != 0;
  in.nchw = in.x->dims();
  if (in.channelsLast) std::rotate(in.nchw.begin() + 1, in.nchw.end() - 1, in.nchw.end());
  return in;
}

Expected<void> storePooled(KernelContext& ctx, const PoolInputs& in, Dims outNchw, const std::vector<int32_t>& values) {
  if (in.channelsLast) std::rotate(outNchw.begin() + 1, outNchw.begin() + 2, outNchw.end());
  auto out = ctx.allocateOutput(0, in.type.dtype, outNchw);
  if (!out) return out.error();
  storeBytes(values, **out);
  return {};
}

Expected<void> runQLinearAveragePool(KernelContext& ctx) {
  auto in = poolInputs(ctx);
  if (!in) return in.error();
  const std::vector<int64_t> spatial(in->nchw.begin() + 2, in->nchw.end());
  auto kernelShape = ctx.attrInts("kernel_shape");
  if (!kernelShape || kernelShape->size() != spatial.size()) return ctx.error("needs a kernel_shape of " + std::to_string(spatial.size()) + " dims");
  auto g = windowGeometry(ctx, spatial, *kernelShape, ctx.attrInt("ceil_mode", 0) != 0);
  if (!g) return g.error();
  const bool countPad = ctx.attrInt("count_include_pad", 0) != 0;
  const size_t rank = spatial.size();
  const int64_t batch = in->nchw[0], channels = in->nchw[1], kernelSize = elementCount(*kernelShape);
  const PlaneLayout src{channels, elementCount(spatial), in->channelsLast}, dst{channels, elementCount(g->outSize), in->channelsLast};
  std::vector<float> x(size_t(in->x->count()));
  const std::vector<int32_t> bytes = bytesOf(*in->x);
  for (size_t i = 0; i < x.size(); ++i) x[i] = in->qx.dequantize(bytes[i]);
  std::vector<int32_t> y(size_t(batch * channels * dst.spatial));
  std::vector<int64_t> opos(rank), kpos(rank);
  for (int64_t o = 0; o < dst.spatial; ++o) {
    for (int64_t rest = o, d = int64_t(rank); d-- > 0; rest /= g->outSize[size_t(d)]) opos[size_t(d)] = rest % g->outSize[size_t(d)];
    // The window's input offsets and its divisor, the same for every plane.
    std::vector<int64_t> offsets;
    int64_t count = 0;
    for (int64_t k = 0; k < kernelSize; ++k) {
      for (int64_t rest = k, d = int64_t(rank); d-- > 0; rest /= (*kernelShape)[size_t(d)]) kpos[size_t(d)] = rest % (*kernelShape)[size_t(d)];
      bool inside = true;
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t i = opos[d] * g->strides[d] - g->padsBegin[d] + kpos[d] * g->dilations[d];
        inside = inside && i >= 0 && i < spatial[d];
        off = off * spatial[d] + i;
      }
      if (inside) offsets.push_back(off);
      count += inside;
    }
    if (countPad) count = kernelSize;  // ONNX Runtime's QLinearAveragePool, unlike its AveragePool
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (int64_t off : offsets) sum += x[size_t(src.at(n, c, off))];
        const float q = std::nearbyint((count ? sum / float(count) : 0.0f) / in->qy.scale + float(in->qy.zero));
        y[size_t(dst.at(n, c, o))] = int32_t(clampOrZero(q, float(in->type.lo), float(in->type.hi)));
      }
  }
  Dims outDims{batch, channels};
  outDims.insert(outDims.end(), g->outSize.begin(), g->outSize.end());
  return storePooled(ctx, *in, outDims, y);
}

Expected<void> runQLinearGlobalAveragePool(KernelContext& ctx) {
  auto in = poolInputs(ctx);
  if (!in) return in.error();
  const int64_t batch = in->nchw[0], channels = in->nchw[1];
  const PlaneLayout src{channels, elementCount(Dims(in->nchw.begin() + 2, in->nchw.end())), in->channelsLast};
  const std::vector<int32_t> bytes = bytesOf(*in->x);
  const float scale = in->qx.scale / (in->qy.scale * float(src.spatial));
  std::vector<int32_t> y(size_t(batch * channels));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      int32_t sum = -in->qx.zero * int32_t(src.spatial);
      for (int64_t s = 0; s < src.spatial; ++s) sum += bytes[size_t(src.at(n, c, s))];
      const float scaled = clampOrZero(float(sum) * scale, float(in->type.lo - in->qy.zero), float(in->type.hi - in->qy.zero));
      y[size_t(n * channels + c)] = int32_t(std::nearbyint(scaled)) + in->qy.zero;
    }
  Dims outDims(in->nchw.size(), 1);
  outDims[0] = batch, outDims[1] = channels;
  return storePooled(ctx, *in, outDims, y);
}

// Inputs Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) for each tensor concatenated along `axis`.
Expected<void> runQLinearConcat(KernelContext& ctx) {
  if (ctx.inputCount() < 5 || (ctx.inputCount() - 2) % 3 != 0)
    return ctx.error("takes Y_scale, Y_zero_point and then (X, X_scale, X_zero_point) triples");
  auto first = ctx.requireTensor(2);
  if (!first) return first.error();
  auto type = byteTypeOf(ctx, 2);
  if (!type) return type.error();
  auto qy = quantizationAt(ctx, 0, 1, *type);
  if (!qy) return qy.error();
  auto axis = normalizeAxis(ctx.attrInt("axis", 0), (*first)->rank());
  if (!axis) return ctx.error("axis " + std::to_string(ctx.attrInt("axis", 0)) + " is out of range for " + (*first)->describe());
  Dims outDims = (*first)->dims();
  outDims[size_t(*axis)] = 0;
  for (size_t i = 2; i < ctx.inputCount(); i += 3) {
    auto x = ctx.requireTensor(i);
    if (!x) return x.error();
    bool same = (*x)->rank() == int64_t(outDims.size()) && (*x)->dtype() == type->dtype;
    for (size_t d = 0; same && d < outDims.size(); ++d) same = d == size_t(*axis) || (*x)->dim(int64_t(d)) == outDims[d];
    if (!same) return ctx.error((*x)->describe() + " does not concatenate with " + (*first)->describe() + " along axis " + std::to_string(*axis), int(i));
    outDims[size_t(*axis)] += (*x)->dim(*axis);
  }
  const AxisSplit split = axisSplit(outDims, *axis);
  std::vector<int32_t> y(size_t(elementCount(outDims)));
  int64_t at = 0;  // where the current input starts along the axis
  for (size_t i = 2; i < ctx.inputCount(); i += 3) {
    const TensorValue& x = ctx.input(i);
    auto qx = quantizationAt(ctx, i + 1, i + 2, *type);
    if (!qx) return qx.error();
    std::vector<int32_t> table(256);
    for (int32_t v = type->lo; v <= type->hi; ++v) table[size_t(v - type->lo)] = quantize(qx->dequantize(v), *qy, *type);
    const std::vector<int32_t> bytes = bytesOf(x);
    const int64_t len = x.dim(*axis), row = len * split.inner;
    for (int64_t o = 0; o < split.outer; ++o)
      for (int64_t j = 0; j < row; ++j)
        y[size_t((o * split.len + at) * split.inner + j)] = table[size_t(bytes[size_t(o * row + j)] - type->lo)];
    at += len;
  }
  auto out = ctx.allocateOutput(0, type->dtype, outDims);
  if (!out) return out.error();
  storeBytes(y, **out);
  return {};
}

// Inputs data, data_scale, data_zero_point, reduced_scale, reduced_zero_point; attributes axes and keepdims.
// The mean of the dequantized values over the axes, requantized. ONNX Runtime has no CPU kernel for it (its
// contrib documentation is the specification).
Expected<void> runQLinearReduceMean(KernelContext& ctx) {
  auto in = quantizedUnaryInputs(ctx);
  if (!in) return in.error();
  const TensorValue* x = in->x;  // named, not structured bindings: clang 14 cannot capture those
  const ByteType& type = in->type;
  const Quantization &qx = in->qx, &qy = in->qy;
  const Dims& dims = x->dims();
  std::vector<bool> reduced(dims.size(), !ctx.attrInts("axes") || ctx.attrInts("axes")->empty());
  for (int64_t axis : ctx.attrInts("axes").value_or(std::vector<int64_t>{})) {
    auto normalized = normalizeAxis(axis, x->rank());
    if (!normalized) return ctx.error("axis " + std::to_string(axis) + " is out of range for " + x->describe(), 0);
    reduced[size_t(*normalized)] = true;
  }
  const bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  Dims outDims, kept(dims.size(), 1);  // kept: the output dims with the reduced ones 1, for indexing
  int64_t count = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (reduced[d]) count *= dims[d];
    else kept[d] = dims[d];
    if (!reduced[d] || keepDims) outDims.push_back(reduced[d] ? 1 : dims[d]);
  }
  const std::vector<int32_t> bytes = bytesOf(*x);
  std::vector<float> sums(size_t(elementCount(kept)), 0.0f);
  const std::vector<int64_t> strides = broadcastStrides(kept, dims);
  std::array<std::vector<int64_t>, 1> walk{strides};
  forEachBroadcast<1>(dims, walk, [&](int64_t in, const std::array<int64_t, 1>& at) { sums[size_t(at[0])] += qx.dequantize(bytes[size_t(in)]); });
  std::vector<int32_t> y(sums.size());
  for (size_t i = 0; i < sums.size(); ++i) y[i] = quantize(count ? sums[i] / float(count) : 0.0f, qy, type);
  auto out = ctx.allocateOutput(0, type.dtype, outDims);
  if (!out) return out.error();
  storeBytes(y, **out);
  return {};
}

}  // namespace

void registerQLinearPoolCpuKernels(KernelRegistry& registry) {
  registry.add(microsoftKernel("QLinearAveragePool", runQLinearAveragePool));
  registry.add(microsoftKernel("QLinearGlobalAveragePool", runQLinearGlobalAveragePool));
  registry.add(microsoftKernel("QLinearConcat", runQLinearConcat));
  registry.add(microsoftKernel("QLinearReduceMean", runQLinearReduceMean));
}

}  // namespace onyx::exec::contrib
