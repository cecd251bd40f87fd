// com.microsoft FusedConv: activation(Conv(X, W) + B + Z), the Conv + activation (+ residual Add) ONNX
// Runtime fuses for CPU. 1-D and 2-D convolutions with groups, strides, dilations, pads or auto_pad
// (exec/cpu/window_geometry), as im2col + one sgemm per (image, group); activations Relu, Sigmoid, Tanh,
// LeakyRelu, Clip and HardSigmoid with activation_params. float32 arithmetic on any float storage.
#include <cmath>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/gemm.h"
#include "exec/cpu/window_geometry.h"
#include "ops/contrib/contrib_kernels.h"

namespace onyx::exec::contrib {
namespace {

bool activate(const std::string& name, const std::vector<float>& params, float* v, int64_t n) {
  auto param = [&](size_t i, float fallback) { return i < params.size() ? params[i] : fallback; };
  if (name.empty()) return true;
  if (name == "Relu") fastRelu(v, v, n, 0, 0);
  else if (name == "Sigmoid") fastSigmoid(v, v, n, 0, 0);
  else if (name == "Tanh") fastTanh(v, v, n, 0, 0);
  else if (name == "HardSigmoid") fastHardSigmoid(v, v, n, param(0, 0.2f), param(1, 0.5f));
  else if (name == "Clip") fastClip(v, v, n, param(0, -INFINITY), param(1, INFINITY));
  else if (name == "LeakyRelu") for (int64_t i = 0; i < n; ++i) v[i] = v[i] < 0 ? param(0, 0.01f) * v[i] : v[i];
  else return false;
  return true;
}

Expected<void> runFusedConv(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [x, w] = *inputs;
  for (size_t i = 0; i < 4; ++i)
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  if ((x.rank() != 3 && x.rank() != 4) || w.rank() != x.rank())
    return ctx.error("FusedConv supports 1-D and 2-D convolutions; got X " + x.describe() + " and W " + w.describe());
  const std::string activation = ctx.attrString("activation", "");
  const std::vector<float> params = ctx.attrFloats("activation_params").value_or(std::vector<float>());
  float probe = 0;
  if (!activate(activation, params, &probe, 1))
    return ctx.error("FusedConv activation '" + activation + "' is not supported (Relu, Sigmoid, Tanh, LeakyRelu, Clip, HardSigmoid)");
  const bool oneD = x.rank() == 3;
  const int64_t batch = x.dim(0), channels = x.dim(1), groups = ctx.attrInt("group", 1), outChannels = w.dim(0);
  if (groups <= 0 || channels % groups || outChannels % groups || w.dim(1) * groups != channels)
    return ctx.error("W " + w.describe() + " does not fit X " + x.describe() + " in " + std::to_string(groups) + " groups", 1);
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end()), kernelDims(w.dims().begin() + 2, w.dims().end());
  auto geometry = windowGeometry(ctx, spatial, kernelDims, false);
  if (!geometry) return geometry.error();
  const WindowGeometry& g = *geometry;
  const int64_t inH = oneD ? 1 : spatial[0], inW = spatial.back(), kh = oneD ? 1 : kernelDims[0], kw = kernelDims.back();
  const int64_t outH = oneD ? 1 : g.outSize[0], outW = g.outSize.back();
  const int64_t sh = oneD ? 1 : g.strides[0], sw = g.strides.back(), dh = oneD ? 1 : g.dilations[0], dw = g.dilations.back();
  const int64_t ph = oneD ? 0 : g.padsBegin[0], pw = g.padsBegin.back();
  Dims outDims = {batch, outChannels};
  outDims.insert(outDims.end(), g.outSize.begin(), g.outSize.end());
  const TensorValue& bias = ctx.input(2);
  const TensorValue& z = ctx.input(3);
  if (!bias.empty() && bias.count() != outChannels) return ctx.error("B must hold one value per output channel", 2);
  if (!z.empty() && z.dims() != outDims) return ctx.error("Z " + z.describe() + " must have the output's dims", 3);
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  std::vector<float> xScratch, wScratch;
  const float* xf = floatData(x, xScratch);
  const float* wf = floatData(w, wScratch);
  std::vector<float> out = z.empty() ? std::vector<float>(size_t(elementCount(outDims)), 0.0f) : floatsOf(z);
  const std::vector<float> b = floatsOf(bias);
  const int64_t cg = channels / groups, mg = outChannels / groups, patch = cg * kh * kw, pixels = outH * outW;
  std::vector<float> columns(size_t(patch * pixels));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t grp = 0; grp < groups; ++grp) {
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            float* col = columns.data() + ((c * kh + i) * kw + j) * pixels;
            const float* plane = xf + ((n * channels) + grp * cg + c) * inH * inW;
            for (int64_t oy = 0; oy < outH; ++oy)
              for (int64_t ox = 0; ox < outW; ++ox) {
                const int64_t iy = oy * sh - ph + i * dh, ix = ox * sw - pw + j * dw;
                col[oy * outW + ox] = iy >= 0 && iy < inH && ix >= 0 && ix < inW ? plane[iy * inW + ix] : 0.0f;
              }
          }
      float* dst = out.data() + (n * outChannels + grp * mg) * pixels;
      sgemm(false, false, mg, pixels, patch, 1.0f, wf + grp * mg * patch, patch, columns.data(), pixels, 1.0f, dst, pixels);
    }
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t m = 0; m < outChannels; ++m) {
      float* plane = out.data() + (n * outChannels + m) * pixels;
      if (!b.empty()) for (int64_t p = 0; p < pixels; ++p) plane[p] += b[size_t(m)];
      activate(activation, params, plane, pixels);
    }
  fromFloats(x.dtype(), out.data(), (*y)->raw(), int64_t(out.size()));
  return {};
}

}  // namespace

void registerFusedConvCpuKernels(KernelRegistry& registry) {
  registry.add(microsoftKernel("FusedConv", runFusedConv));
}

}  // namespace onyx::exec::contrib
