// com.microsoft FusedConv: activation(Conv(X, W) + B + Z), the Conv + activation (+ residual Add) ONNX
// Runtime fuses for CPU. 1-D, 2-D and 3-D convolutions (NCW, NCHW, NCDHW) with groups, strides, dilations,
// pads or auto_pad (exec/cpu/window_geometry), as im2col + one sgemm per (image, group); activations Relu,
// Sigmoid, Tanh, LeakyRelu, Clip and HardSigmoid with activation_params. float32 arithmetic on any float storage;
// a fast variant and its reference (contrib_math.h).
#include <cmath>

#include "exec/cpu/window_geometry.h"
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

bool activate(const ContribMath& math, const std::string& name, const std::vector<float>& params, float* v, int64_t n) {
  auto param = [&](size_t i, float fallback) { return i < params.size() ? params[i] : fallback; };
  if (name.empty()) return true;
  if (name == "Relu") math.relu(v, v, n, 0, 0);
  else if (name == "Sigmoid") math.sigmoid(v, v, n, 0, 0);
  else if (name == "Tanh") math.tanh(v, v, n, 0, 0);
  else if (name == "HardSigmoid") math.hardSigmoid(v, v, n, param(0, 0.2f), param(1, 0.5f));
  else if (name == "Clip") math.clip(v, v, n, param(0, -INFINITY), param(1, INFINITY));
  else if (name == "LeakyRelu") for (int64_t i = 0; i < n; ++i) v[i] = v[i] < 0 ? param(0, 0.01f) * v[i] : v[i];
  else return false;
  return true;
}

// The window of one convolution as three spatial dims (depth, height, width): 1-D and 2-D convolutions
// have leading dims of size 1, kernel 1, stride 1 and no padding.
struct Window3 {
  int64_t in[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
};

Window3 window3(const std::vector<int64_t>& spatial, const WindowGeometry& g) {
  Window3 w;
  const size_t offset = 3 - spatial.size();
  for (size_t d = 0; d < spatial.size(); ++d) {
    w.in[offset + d] = spatial[d];
    w.kernel[offset + d] = g.kernel[d];
    w.out[offset + d] = g.outSize[d];
    w.stride[offset + d] = g.strides[d];
    w.dilation[offset + d] = g.dilations[d];
    w.pad[offset + d] = g.padsBegin[d];
  }
  return w;
}

// im2col of one group of one image: `columns` gets a row per (channel, kernel offset) and a column per output
// position; taps outside the input read 0.
void gatherColumns(const float* image, int64_t channels, const Window3& w, float* columns) {
  const int64_t pixels = w.out[0] * w.out[1] * w.out[2], plane = w.in[0] * w.in[1] * w.in[2];
  float* col = columns;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kd = 0; kd < w.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < w.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < w.kernel[2]; ++kw, col += pixels) {
          const float* src = image + c * plane;
          int64_t p = 0;
          for (int64_t od = 0; od < w.out[0]; ++od) {
            const int64_t id = od * w.stride[0] - w.pad[0] + kd * w.dilation[0];
            for (int64_t oh = 0; oh < w.out[1]; ++oh) {
              const int64_t ih = oh * w.stride[1] - w.pad[1] + kh * w.dilation[1];
              const bool rowInside = id >= 0 && id < w.in[0] && ih >= 0 && ih < w.in[1];
              for (int64_t ow = 0; ow < w.out[2]; ++ow, ++p) {
                const int64_t iw = ow * w.stride[2] - w.pad[2] + kw * w.dilation[2];
                col[p] = rowInside && iw >= 0 && iw < w.in[2] ? src[(id * w.in[1] + ih) * w.in[2] + iw] : 0.0f;
              }
            }
          }
        }
}

template <bool Fast>
Expected<void> runFusedConv(KernelContext& ctx) {
  const ContribMath& math = contribMath<Fast>();
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [x, w] = *inputs;
  for (size_t i = 0; i < 4; ++i)
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
    return ctx.error("FusedConv supports 1-D, 2-D and 3-D convolutions; got X " + x.describe() + " and W " + w.describe());
  const std::string activation = ctx.attrString("activation", "");
  const std::vector<float> params = ctx.attrFloats("activation_params").value_or(std::vector<float>());
  float probe = 0;
  if (!activate(math, activation, params, &probe, 1))
    return ctx.error("FusedConv activation '" + activation + "' is not supported (Relu, Sigmoid, Tanh, LeakyRelu, Clip, HardSigmoid)");
  const int64_t batch = x.dim(0), channels = x.dim(1), groups = ctx.attrInt("group", 1), outChannels = w.dim(0);
  if (groups <= 0 || channels % groups || outChannels % groups || channels / groups != w.dim(1))
    return ctx.error("W " + w.describe() + " does not fit X " + x.describe() + " in " + std::to_string(groups) + " groups", 1);
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end()), kernelDims(w.dims().begin() + 2, w.dims().end());
  auto geometry = windowGeometry(ctx, spatial, kernelDims, false);
  if (!geometry) return geometry.error();
  const Window3 win = window3(spatial, *geometry);
  Dims outDims = {batch, outChannels};
  outDims.insert(outDims.end(), geometry->outSize.begin(), geometry->outSize.end());
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
  const int64_t cg = channels / groups, mg = outChannels / groups;
  const int64_t patch = cg * win.kernel[0] * win.kernel[1] * win.kernel[2], pixels = win.out[0] * win.out[1] * win.out[2];
  const int64_t plane = win.in[0] * win.in[1] * win.in[2];
  std::vector<float> columns(size_t(patch * pixels));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t grp = 0; grp < groups; ++grp) {
      gatherColumns(xf + (n * channels + grp * cg) * plane, cg, win, columns.data());
      float* dst = out.data() + (n * outChannels + grp * mg) * pixels;
      math.gemm(false, false, mg, pixels, patch, 1.0f, wf + grp * mg * patch, patch, columns.data(), pixels, 1.0f, dst, pixels);
    }
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t m = 0; m < outChannels; ++m) {
      float* values = out.data() + (n * outChannels + m) * pixels;
      if (!b.empty()) for (int64_t p = 0; p < pixels; ++p) values[p] += b[size_t(m)];
      activate(math, activation, params, values, pixels);
    }
  fromFloats(x.dtype(), out.data(), (*y)->raw(), int64_t(out.size()));
  return {};
}

}  // namespace

void registerFusedConvCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "FusedConv", runFusedConv<false>, runFusedConv<true>);
}

}  // namespace onyx::exec::contrib
