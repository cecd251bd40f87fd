// Vulkan kernels for Conv (direct for depthwise and small channel counts, im2col + tiled GEMM otherwise;
// grouped, bias fused) and ConvTranspose, 1-D and 2-D. Window sizes come from the CPU kernels' geometry.
#include "exec/cpu/window_geometry.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "ops/math/matmul_vulkan.h"

namespace onyx::exec::vulkan {


namespace {

// The 2-D view of a 1-D or 2-D window: H = 1 for 1-D.
struct Window2d {
  int64_t h = 1, w = 1, oh = 1, ow = 1, kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, pb = 0, pr = 0, dh = 1,
          dw = 1;
};

Window2d window2d(const std::vector<int64_t>& spatial, const WindowGeometry& g) {
  Window2d v;
  size_t o = spatial.size() == 2 ? 1 : 0;
  if (spatial.size() == 2) {
    v.h = spatial[0];
    v.oh = g.outSize[0];
    v.kh = g.kernel[0];
    v.sh = g.strides[0];
    v.pt = g.padsBegin[0];
    v.pb = g.padsEnd[0];
    v.dh = g.dilations[0];
  }
  v.w = spatial[o];
  v.ow = g.outSize[o];
  v.kw = g.kernel[o];
  v.sw = g.strides[o];
  v.pl = g.padsBegin[o];
  v.pr = g.padsEnd[o];
  v.dw = g.dilations[o];
  return v;
}

void pushWindow(Push& push, int64_t count, int64_t c, int64_t m, const Window2d& v, int64_t groups, bool bias) {
  push.at(0, count).at(1, c).at(2, v.h).at(3, v.w).at(4, m).at(5, v.oh).at(6, v.ow).at(7, v.kh).at(8, v.kw);
  push.at(9, v.sh).at(10, v.sw).at(11, v.pt).at(12, v.pl).at(13, v.dh).at(14, v.dw).at(15, groups).at(16, bias);
}

Expected<void> runConv(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  const TensorValue& w = run.input(1);
  if (x.rank() < 3 || x.rank() > 4 || w.rank() != x.rank()) return run.fallback("not a 1-D or 2-D convolution");
  int64_t groups = run.node().attrInt("group", 1);
  int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0), cg = w.dim(1);
  if (groups <= 0 || c != cg * groups || m % groups != 0)
    return run.error("channels of " + x.describe() + " do not match weights " + w.describe());
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kernel = run.node().attrInts("kernel_shape").value_or(
      std::vector<int64_t>(w.dims().begin() + 2, w.dims().end()));
  auto g = windowGeometry(run.kernel(), spatial, kernel, false);
  if (!g) return g.error();
  Dims outDims = {n, m};
  outDims.insert(outDims.end(), g->outSize.begin(), g->outSize.end());
  auto y = run.output(0, x.dtype(), outDims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  Window2d v = window2d(spatial, *g);
  const TensorValue* bias = run.hasInput(2) ? &run.input(2) : nullptr;
  int64_t kSize = cg * v.kh * v.kw, outPlane = v.oh * v.ow, mg = m / groups;
  bool gemm = cg > 4 && mg >= 8 && outPlane >= 16;
  if (!gemm) {
    Push push;
    pushWindow(push, y->count(), c, m, v, groups, bias != nullptr);
    return run.dispatch("conv_vulkan", {}, {&x, &w, bias ? bias : &x, &*y}, push, y->count(), x.dtype() == DataType::Float16);
  }
  // im2col per image into [groups, cg*kh*kw, oh*ow], then one batched GEMM over the groups.
  auto col = run.scratch(x.dtype(), {groups * kSize, outPlane});
  if (!col) return col.error();
  for (int64_t b = 0; b < n; ++b) {
    Push push;
    pushWindow(push, col->count(), c, m, v, groups, false);
    push.at(17, b * c * v.h * v.w);
    auto done = run.dispatch("conv_im2col_vulkan", {}, {&x, &*col}, push, col->count(), x.dtype() == DataType::Float16);
    if (!done) return done;
    GemmCall call;
    call.m = mg;
    call.n = outPlane;
    call.k = kSize;
    call.batchDims = {1, 1, groups};
    call.aBatch = {0, 0, mg * kSize};
    call.bBatch = {0, 0, kSize * outPlane};
    call.aM = kSize;
    call.aK = 1;
    call.bK = outPlane;
    call.bN = 1;
    call.bias = bias;
    call.biasM = 1;
    call.biasN = 0;
    call.biasBatch = mg;
    call.yBase = b * m * outPlane;
    done = gemmOnDevice(run, call, w, *col, *y);
    if (!done) return done;
  }
  return {};
}

Expected<void> runConvTranspose(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  const TensorValue& w = run.input(1);
  if (x.rank() < 3 || x.rank() > 4 || w.rank() != x.rank()) return run.fallback("not a 1-D or 2-D convolution");
  int64_t groups = run.node().attrInt("group", 1);
  int64_t n = x.dim(0), c = x.dim(1), mg = w.dim(1), m = mg * groups;
  if (groups <= 0 || w.dim(0) != c || c % groups != 0) return run.error("channels do not match weights " + w.describe());
  size_t sr = size_t(x.rank() - 2);
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  const Node& node = run.node();
  std::vector<int64_t> kernel =
      node.attrInts("kernel_shape").value_or(std::vector<int64_t>(w.dims().begin() + 2, w.dims().end()));
  std::vector<int64_t> strides = node.attrInts("strides").value_or(std::vector<int64_t>(sr, 1));
  std::vector<int64_t> dil = node.attrInts("dilations").value_or(std::vector<int64_t>(sr, 1));
  std::vector<int64_t> outPad = node.attrInts("output_padding").value_or(std::vector<int64_t>(sr, 0));
  std::vector<int64_t> pads = node.attrInts("pads").value_or(std::vector<int64_t>(2 * sr, 0));
  auto outShape = node.attrInts("output_shape");
  std::string autoPad = node.attrString("auto_pad", "NOTSET");
  if (strides.size() != sr || dil.size() != sr || outPad.size() != sr || pads.size() != 2 * sr || kernel.size() != sr)
    return run.error("attribute sizes do not match the spatial rank");
  std::vector<int64_t> out = convTransposeOutputSize(spatial, kernel, strides, dil, outPad, autoPad, outShape, pads);
  WindowGeometry g{kernel, strides, dil, std::vector<int64_t>(pads.begin(), pads.begin() + long(sr)),
                   std::vector<int64_t>(pads.begin() + long(sr), pads.end()), out};
  Dims outDims = {n, m};
  outDims.insert(outDims.end(), out.begin(), out.end());
  auto y = run.output(0, x.dtype(), outDims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  Window2d v = window2d(spatial, g);
  const TensorValue* bias = run.hasInput(2) ? &run.input(2) : nullptr;
  Push push;
  pushWindow(push, y->count(), c, m, v, groups, bias != nullptr);
  return run.dispatch("conv_transpose_vulkan", {}, {&x, &w, bias ? bias : &x, &*y}, push, y->count(),
                      x.dtype() == DataType::Float16);
}

}  // namespace

void registerConvVulkanKernels(VulkanKernelRegistry& registry) {
  VulkanKernelDef conv{"Conv", 1};
  conv.function = runConv;
  registry.add(std::move(conv));
  VulkanKernelDef transpose{"ConvTranspose", 1};
  transpose.function = runConvTranspose;
  registry.add(std::move(transpose));
}

}  // namespace onyx::exec::vulkan
