// Vulkan kernels for Conv (a depthwise kernel for one channel per group, an implicit GEMM otherwise; grouped,
// bias and the executor's fused epilogue computed in the output pass) and ConvTranspose, 1-D and 2-D. Window
// sizes come from the CPU kernels' geometry.
#include <bit>
#include <optional>

#include "exec/cpu/window_geometry.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "ops/math/matmul_vulkan.h"
#include "ops/nn/conv_epilogue_chain.h"
#include "util/limits.h"

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

// The fused epilogue's ops as conv_epilogue.glsl numbers them, with their parameters.
enum EpilogueCode { kNone = 0, kRelu = 1, kLeakyRelu = 2, kClip = 3, kSigmoid = 4, kSilu = 5, kTanh = 6, kAddResidual = 7 };
struct EpilogueStage {
  int code = kNone;
  float a = 0, b = 0;
  int residual = -1;  // KernelContext::epilogueOperand index
};
constexpr size_t kMaxEpilogueStages = 3;


// The chain as shader stages (convEpilogueChain, the same reading the oneDNN Conv makes), or nullopt when a
// stage repeats or there are more than the shaders hold.
std::optional<std::vector<EpilogueStage>> epilogueStages(const std::vector<EpilogueOp>& ops) {
  auto chain = convEpilogueChain(ops);
  if (!chain) return std::nullopt;
  std::vector<EpilogueStage> out;
  for (const ConvEpilogueStage& stage : *chain) {
    switch (stage.kind) {
      case ConvEpilogueKind::Relu: out.push_back({kRelu}); break;
      case ConvEpilogueKind::LeakyRelu: out.push_back({kLeakyRelu, stage.a}); break;
      case ConvEpilogueKind::Tanh: out.push_back({kTanh}); break;
      case ConvEpilogueKind::Clip: out.push_back({kClip, stage.a, stage.b}); break;
      case ConvEpilogueKind::Sigmoid: out.push_back({kSigmoid}); break;
      case ConvEpilogueKind::Silu: out.push_back({kSilu}); break;
      case ConvEpilogueKind::AddResidual: out.push_back({kAddResidual, 0, 0, stage.residual}); break;
    }
    // oneDNN refuses a repeated eltwise algorithm; so do we, so the CPU fallback can take the chain.
    for (size_t k = 0; k + 1 < out.size(); ++k)
      if (out[k].code == out.back().code && out.back().code != kAddResidual) return std::nullopt;
    if (out.size() > kMaxEpilogueStages) return std::nullopt;
  }
  return out;
}

bool acceptsConvEpilogue(const std::vector<EpilogueOp>& ops) { return epilogueStages(ops).has_value(); }

Expected<Dims> convOutputDims(const KernelContext& ctx, const TensorValue& x, const TensorValue& w) {
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  // The weights' window; windowGeometry refuses a kernel_shape that disagrees with it.
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  auto g = windowGeometry(ctx, spatial, kernel, false);
  if (!g) return g.error();
  Dims out = {x.dim(0), w.dim(0)};
  out.insert(out.end(), g->outSize.begin(), g->outSize.end());
  return out;
}

// A residual must have exactly the Conv's output shape and type (the shaders read it at the output's index).
bool canFuseConvEpilogue(const KernelContext& ctx, const std::vector<EpilogueOp>& ops) {
  auto stages = epilogueStages(ops);
  const TensorValue& x = ctx.input(0);
  const TensorValue& w = ctx.input(1);
  if (!stages || x.rank() < 3 || x.rank() > 4 || w.rank() != x.rank()) return false;
  for (const EpilogueStage& stage : *stages) {
    if (stage.residual < 0) continue;
    const TensorValue& r = ctx.epilogueOperand(size_t(stage.residual));
    auto out = convOutputDims(ctx, x, w);
    if (!out || r.dtype() != x.dtype() || r.dims() != *out || r.channelsLast()) return false;
  }
  return true;
}

// The epilogue's specialization constants (three op codes), push constants 19..24 (two parameters each) and
// residual operand, for this run.
struct FusedEpilogue {
  std::vector<int32_t> codes = std::vector<int32_t>(kMaxEpilogueStages, kNone);
  const TensorValue* residual = nullptr;
};

Expected<FusedEpilogue> fusedEpilogue(VulkanRun& run, Push& push) {
  FusedEpilogue fused;
  if (run.epilogue().empty()) return fused;
  auto stages = epilogueStages(run.epilogue());
  if (!stages) return run.error("cannot compute its fused epilogue");
  for (size_t i = 0; i < stages->size(); ++i) {
    const EpilogueStage& stage = (*stages)[i];
    fused.codes[i] = stage.code;
    push.at(19 + 2 * int(i), std::bit_cast<int32_t>(stage.a)).at(20 + 2 * int(i), std::bit_cast<int32_t>(stage.b));
    if (stage.residual >= 0) fused.residual = &run.epilogueOperand(size_t(stage.residual));
  }
  return fused;
}

Expected<void> runDepthwise(VulkanRun& run, const TensorValue& x, const TensorValue& w, const TensorValue* bias,
                            const TensorValue& y, const Window2d& v) {
  Push push;
  int64_t quads = (v.ow + 3) / 4, count = x.dim(0) * x.dim(1) * v.oh * quads;
  pushWindow(push, count, x.dim(1), w.dim(0), v, x.dim(1), bias != nullptr);
  auto fused = fusedEpilogue(run, push);
  if (!fused) return fused.error();
  std::vector<int32_t> spec = {int32_t(v.kh), int32_t(v.kw)};
  spec.insert(spec.end(), fused->codes.begin(), fused->codes.end());
  return run.dispatch("conv_depthwise_vulkan", spec,
                      {&x, &w, bias ? bias : &x, &y, fused->residual ? fused->residual : &x}, push, count,
                      x.dtype() == DataType::Float16);
}

// Implicit GEMM per image and group: M = output channels of the group, N = output pixels, K = the window.
Expected<void> runConvGemm(VulkanRun& run, const TensorValue& x, const TensorValue& w, const TensorValue* bias,
                           const TensorValue& y, const Window2d& v, int64_t groups) {
  int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0), cg = w.dim(1), mg = m / groups;
  int64_t kSize = cg * v.kh * v.kw, outPlane = v.oh * v.ow;
  Push push;
  push.at(0, mg).at(1, outPlane).at(2, kSize).at(3, c).at(4, v.h).at(5, v.w).at(6, v.oh).at(7, v.ow);
  push.at(8, v.kh).at(9, v.kw).at(10, v.sh).at(11, v.sw).at(12, v.pt).at(13, v.pl).at(14, v.dh).at(15, v.dw);
  push.at(16, groups).at(17, bias != nullptr).at(18, m);
  auto fused = fusedEpilogue(run, push);
  if (!fused) return fused.error();
  bool float16 = x.dtype() == DataType::Float16;
  bool pointwise = v.kh == 1 && v.kw == 1 && v.sh == 1 && v.sw == 1 && v.pt == 0 && v.pl == 0 &&
                   v.oh == v.h && v.ow == v.w;
  bool vecA = !float16 && kSize % 4 == 0;
  bool vecB = !float16 && pointwise && outPlane % 4 == 0;
  int tm = gemmRowsPerThread(mg, outPlane, n * groups);
  std::vector<int32_t> spec = {tm, false, false, vecA, vecB, pointwise};
  spec.insert(spec.end(), fused->codes.begin(), fused->codes.end());
  int parts = gemmSplitK(run, mg, outPlane, kSize, n * groups, tm, float16);
  spec.push_back(parts);  // SPLIT_K (constant 9)
  const TensorValue* out = &y;
  Expected<TensorValue> partial = TensorValue();
  if (parts > 1) {
    partial = run.scratch(DataType::Float, {parts * y.count()});
    if (!partial) return partial.error();
    out = &*partial;
  }
  std::vector<const TensorValue*> tensors = {&x, &w, bias ? bias : &x, out, fused->residual ? fused->residual : &x};
  if (!float16) tensors.insert(tensors.end(), {&w, &x});  // the vec4 views
  int64_t rows = 16 * tm;
  auto done = run.dispatchGroups("conv_gemm_vulkan", spec, tensors, push, uint32_t((outPlane + 63) / 64),
                                 uint32_t((mg + rows - 1) / rows), uint32_t(n * groups * parts), float16);
  if (!done || parts == 1) return done;
  Push finish = push;  // keeps the epilogue parameters (19-24)
  finish.at(2, m).at(3, outPlane).at(4, bias != nullptr);
  return addSplitKParts(run, *partial, parts, 1, finish, fused->codes, bias, fused->residual, y);
}

Expected<void> runConv(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  const TensorValue& w = run.input(1);
  if (x.rank() < 3 || x.rank() > 4 || w.rank() != x.rank()) return run.fallback("not a 1-D or 2-D convolution");
  int64_t groups = run.node().attrInt("group", 1);
  int64_t c = x.dim(1), m = w.dim(0), cg = w.dim(1);
  if (groups <= 0 || c % groups != 0 || c / groups != cg || m % groups != 0)
    return run.error("channels of " + x.describe() + " do not match weights " + w.describe());
  auto outDims = convOutputDims(run.kernel(), x, w);
  if (!outDims) return outDims.error();
  auto y = run.output(0, x.dtype(), *outDims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  auto g = windowGeometry(run.kernel(), spatial, kernel, false);
  if (!g) return g.error();
  Window2d v = window2d(spatial, *g);
  const TensorValue* bias = run.hasInput(2) ? &run.input(2) : nullptr;
  if (cg == 1 && m == groups) return runDepthwise(run, x, w, bias, *y, v);
  if (x.dim(0) * groups > int64_t(run.context().maxGroupsPerDim())) return run.fallback("too many images and groups");
  return runConvGemm(run, x, w, bias, *y, v, groups);
}

Expected<void> runConvTranspose(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  const TensorValue& w = run.input(1);
  if (x.rank() < 3 || x.rank() > 4 || w.rank() != x.rank()) return run.fallback("not a 1-D or 2-D convolution");
  int64_t groups = run.node().attrInt("group", 1);
  int64_t n = x.dim(0), c = x.dim(1), mg = w.dim(1);
  const auto outChannels = checkedMul(mg, groups);  // a group of 2^62 overflows
  if (groups <= 0 || w.dim(0) != c || c % groups != 0 || !outChannels)
    return run.error("channels do not match weights " + w.describe());
  const int64_t m = *outChannels;
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
  if (strides.size() != sr || dil.size() != sr || outPad.size() != sr || pads.size() != 2 * sr || kernel.size() != sr ||
      (outShape && outShape->size() < sr))
    return run.error("attribute sizes do not match the spatial rank");
  std::vector<int64_t> window(w.dims().begin() + 2, w.dims().end());
  if (auto checked = checkConvTransposeWindow(run.kernel(), window, strides, dil, pads); !checked)
    return checked.error();
  kernel = window;
  const auto outSize = convTransposeOutputSize(spatial, kernel, strides, dil, outPad, autoPad, outShape, pads);
  if (!outSize) return run.error("output size passes 2^63 (strides, dilations, output_padding or output_shape too large)");
  const std::vector<int64_t>& out = *outSize;
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
  conv.acceptsEpilogue = acceptsConvEpilogue;
  conv.canFuseEpilogue = canFuseConvEpilogue;
  registry.add(std::move(conv));
  VulkanKernelDef transpose{"ConvTranspose", 1};
  transpose.function = runConvTranspose;
  registry.add(std::move(transpose));
}

}  // namespace onyx::exec::vulkan
