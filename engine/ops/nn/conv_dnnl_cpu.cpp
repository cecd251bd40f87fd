// Conv through oneDNN (float32), the fast variant of the reference kernel in conv_cpu.cpp; the oneDNN 2.x
// API (it changed in 3.x) is used only in the *_dnnl_cpu.cpp files and exec/cpu/dnnl_common.h, gemm.cpp. Primitives are created per input shape and cached; constant weights are
// reordered into oneDNN's preferred (blocked) layout once per primitive. Other types go to the reference
// kernels.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <span>

#include "exec/cpu/cpu_isa.h"
#include "exec/cpu/dnnl_common.h"
#include "exec/cpu/fast_math.h"
#include "exec/cpu/window_geometry.h"
#include "exec/elementwise.h"
#include "exec/kernel_util.h"
#include "exec/thread_pool.h"
#include "ops/nn/conv_dilated_taps.h"
#include "ops/nn/conv_epilogue_chain.h"
#include "ops/nn/conv_pixel_gemv.h"
#include "ops/nn/conv_silu_placement.h"
#include "ops/nn/conv_slabs_dnnl.h"
#include "ops/nn/conv_winograd_f43.h"

namespace onyx::exec {

int64_t convFlops(const KernelContext& ctx);  // conv_cpu.cpp

// Whether a convolution should take oneDNN's Winograd algorithm (F(4x4, 3x3) or F(2x2, 3x3)): dense 3x3
// stride 1 with at least 32 channels in and 64 out over at least 14 x 14 outputs. There it multiplies
// 2.25x to 4x less: resnet18's layer1-3 convs ran 25-35% faster and squeezenet's 32 -> 128 expand convs on
// 27 x 27 maps 10-15%, reorders to and from its blocked layout included. On 13 x 13 and 7 x 7 maps the
// transforms cost what the products save, and with 16 channels in (squeezenet's 16 -> 64 expand convs on
// 55 x 55 maps) brgconv's direct products took 0.18-0.21 ms against Winograd's 0.22-0.25 on a 2-core Xeon.
// Its weights are transformed once, so only for constant weights. Dilations as oneDNN counts them
// (0: dense). ONYX_NO_WINOGRAD turns it off.
bool convWinogradPays(int64_t inChannels, int64_t outChannels, const std::vector<int64_t>& kernel,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                      const Dims& outDims) {
  if (kernel.size() != 2 || kernel[0] != 3 || kernel[1] != 3) return false;
  if (strides[0] != 1 || strides[1] != 1 || dilations[0] != 0 || dilations[1] != 0) return false;
  static const bool off = std::getenv("ONYX_NO_WINOGRAD") != nullptr;
  if (off) return false;
  return inChannels >= 32 && outChannels >= 64 && outDims[2] * outDims[3] >= 14 * 14;
}

namespace {

// Whether a Winograd Conv runs as ours (ConvWinogradF43) rather than as oneDNN's: where oneDNN has no Winograd
// kernel (without AVX-512), or everywhere with ONYX_WINOGRAD=own (read at each plan: tests set it).
bool ownWinogradWanted() {
  const char* choice = std::getenv("ONYX_WINOGRAD");
  if (choice && std::string_view(choice) == "own") return true;
  return dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core;
}

// The tag of channels-last storage (TensorValue::channelsLast) for a rank.
Tag channelsLastTag(size_t rank) {
  return rank == 3 ? Tag::acb : rank == 4 ? Tag::acdb : rank == 5 ? Tag::acdeb : Tag::undef;
}

// oneDNN's preferred layout without AVX-512 (prefersBlocksOf8).
Tag blocked8Tag(size_t rank) {
  return rank == 3 ? Tag::aBc8b : rank == 4 ? Tag::aBcd8b : rank == 5 ? Tag::aBcde8b : Tag::undef;
}

// The tag of storage in channel blocks of 16 (TensorValue::blocked16) for a rank.
Tag blocked16Tag(size_t rank) {
  return rank == 3 ? Tag::aBc16b : rank == 4 ? Tag::aBcd16b : rank == 5 ? Tag::aBcde16b : Tag::undef;
}

Tag layoutTag(const TensorValue& t) {
  const size_t rank = size_t(t.rank());
  return t.channelsLast() ? channelsLastTag(rank) : t.blocked16() ? blocked16Tag(rank) : plainTag(rank);
}

// A Conv prepared for one input shape and layout. A data input joined by a Concat the executor folded
// (KernelContext::inputParts) runs as one convolution per part, on that part's slice of the input channels
// of the weights: a Conv is linear in its input channels, so oneDNN's sum post-op adds the parts' results
// in the output, and the last part applies the epilogue.
struct ConvPart {
  dnnl::convolution_forward primitive;
  dnnl::convolution_forward::primitive_desc pd;
  memory weights;           // in the primitive's layout
  int64_t channelOffset = 0;  // the first input channel of the weights it reads
  memory bias;              // the first part's only
  Tag srcTag = Tag::undef;  // the layout of the tensor we read
  bool srcReorder = false;
  memory srcBlocked;  // the primitive's layout when it differs from ours: allocated once
  dnnl::reorder toBlocked;
  // Made on the plan's first run, pointed at each run's tensors: a run made a memory object per tensor and
  // an argument map per part (about a dozen allocations a Conv, 81 Convs in efficientnet_b0).
  memory userSrc;
  std::unordered_map<int, memory> args;
  // A run that takes a channel scale into the weights (DnnlConv::takesScale): W[o][c] * s[c] written plain,
  // then reordered into the primitive's layout, and the arguments that read it.
  memory plainScaled, scaledWeights;
  dnnl::reorder toScaled;
  std::unordered_map<int, memory> scaledArgs;
};

struct ConvPlan {
  std::vector<ConvPart> parts;
  Dims outDims;
  bool winograd = false;    // the first part's algorithm
  std::string implementation;  // the first part's, as oneDNN names it ("brg:avx2"), and its reorders
  Tag dstTag = Tag::undef;  // the layout of the tensor we write
  bool dstReorder = false;
  memory dstBlocked;
  dnnl::reorder fromBlocked;
  memory userDst;  // as ConvPart::userSrc
  std::map<Tag, dnnl::reorder> residualReorders;  // per residual layout, into the primitive's dst
};

using PostOp = ConvPostOp;

// The post-ops of an epilogue, or nullopt when oneDNN cannot express one of its ops or the chain repeats an
// eltwise algorithm (repeatsAlgorithm: Relu and LeakyRelu are both eltwise_relu).
std::optional<std::vector<PostOp>> postOpsOf(const std::vector<ConvEpilogueStage>& chain) {
  std::vector<PostOp> out;
  for (const ConvEpilogueStage& stage : chain) {
    switch (stage.kind) {
      case ConvEpilogueKind::Relu: out.push_back({dnnl::algorithm::eltwise_relu, 0.0f, 0.0f}); break;
      case ConvEpilogueKind::LeakyRelu: out.push_back({dnnl::algorithm::eltwise_relu, stage.a, 0.0f}); break;
      case ConvEpilogueKind::Tanh: out.push_back({dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f}); break;
      case ConvEpilogueKind::Clip: out.push_back({dnnl::algorithm::eltwise_clip, stage.a, stage.b}); break;
      case ConvEpilogueKind::Sigmoid: out.push_back({dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f}); break;
      case ConvEpilogueKind::Silu: out.push_back({dnnl::algorithm::eltwise_swish, 1.0f, 0.0f}); break;
      case ConvEpilogueKind::AddResidual: out.push_back({dnnl::algorithm::undef, 0.0f, 0.0f, stage.residual}); break;
    }
    if (repeatsAlgorithm(out)) return std::nullopt;
  }
  return out;
}

// Whether a Conv will take oneDNN's Winograd algorithm, as far as its node says before any run: the rule of
// convWinogradPays on its weights, attributes and (where inferred) output size, on a CPU oneDNN has Winograd
// kernels for (AVX-512). Such a Conv reads and writes channel blocks of 16 (TensorValue::blocked16).
bool takesWinogradBlocks(const Node& node, const onyx::Tensor* weights) {
  if (!weights || weights->dims().size() != 4 || node.attrInt("group", 1) != 1) return false;
  if (dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core) return false;
  const std::vector<int64_t>& w = weights->dims();
  const std::vector<int64_t> strides = node.attrInts("strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dilations = node.attrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  if (strides.size() != 2 || dilations.size() != 2) return false;
  for (int64_t& d : dilations) d -= 1;  // oneDNN's count
  Dims out = {1, w[0], 14, 14};  // unknown: as if large enough
  const onyx::Value* y = node.output(0);
  if (y && y->type().shape() && y->type().shape()->size() == 4)
    for (size_t axis = 2; axis < 4; ++axis)
      if (auto extent = (*y->type().shape())[axis].value()) out[axis] = *extent;
  return convWinogradPays(w[1], w[0], {w[2], w[3]}, strides, dilations, out);
}

// Whether a Conv should run on layouts of ours rather than on the one oneDNN prefers, which it prefers
// without AVX-512: channel blocks of 8. No other kernel of ours reads those, so each Conv reordered its input
// into them and its output back, 113 reorders a run of mobilenet_v2, which took 3x its AVX-512 time where the
// vector width accounts for 2x. oneDNN's AVX2 kernels take channels-last at about the speed of their blocks:
// on a 2-core Xeon under ONYX_CPU_ISA=avx2 that model went from 10.4 to 4.6 ms, efficientnet_b0 18.8 -> 9.5,
// squeezenet1_1 6.9 -> 5.5 and resnet18 22.6 -> 21.9. (With AVX-512 some of resnet18's convs prefer blocks of
// 16; making those keep channels-last made the model 14% slower.)
bool prefersBlocksOf8(const dnnl::convolution_forward::primitive_desc& pd) {
  const memory::desc dst = pd.dst_desc();
  return dst == memory::desc(dst.dims(), memory::data_type::f32, blocked8Tag(size_t(dst.dims().size())));
}

// Whether oneDNN's direct convolution for this Conv's geometry is its im2col GEMM ("gemm:jit").
bool directConvIsGemm(const KernelContext& ctx, const TensorValue& x, const TensorValue& w) {
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  auto g = windowGeometry(ctx, spatial, kernel, false);
  if (!g) return false;
  const memory::dims dil = oneDnnDilations(g->dilations);
  Dims outDims = {x.dim(0), w.dim(0)};
  for (int64_t o : g->outSize) outDims.push_back(o);
  try {
    const memory::desc src(x.dims(), memory::data_type::f32, Tag::any);
    const memory::desc weights(w.dims(), memory::data_type::f32, Tag::any);
    const memory::desc dst(outDims, memory::data_type::f32, Tag::any);
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                        weights, dst, g->strides, dil, g->padsBegin, g->padsEnd),
        cpuEngine());
    return std::string_view(pd.impl_info_str()).find("gemm") != std::string_view::npos;
  } catch (const dnnl::error&) {
    return false;
  }
}

// A fast path's answer for a Conv (asking finds the window's geometry: allocations), kept for the last input
// dims, layout and epilogue length where `keep` says the answer cannot change otherwise (constant weights).
class KeptAnswer {
 public:
  template <class Ask>
  bool get(const TensorValue& x, size_t stages, bool keep, const Ask& ask) {
    if (!keep || !known_ || x.dims() != dims_ || x.channelsLast() != channelsLast_ || stages != stages_) {
      answer_ = ask();
      known_ = keep;
      dims_ = x.dims();
      channelsLast_ = x.channelsLast();
      stages_ = stages;
    }
    return answer_;
  }
  void forget() { known_ = false; }  // a new epilogue

 private:
  Dims dims_;
  bool channelsLast_ = false;
  size_t stages_ = 0;
  bool answer_ = false;
  bool known_ = false;
};

class DnnlConv final : public Kernel {
 public:
  DnnlConv(const onyx::Tensor* constantWeights, bool winogradBlocks)
      : constantWeights_(constantWeights != nullptr), winogradBlocks_(winogradBlocks) {}

  bool setEpilogue(const std::vector<EpilogueOp>& ops) override {
    auto chain = convEpilogueChain(ops);
    if (!chain) return false;
    auto post = postOpsOf(*chain);
    if (!post) return false;
    postOps_ = std::move(*post);
    stages_ = std::move(*chain);
    // A SiLU that ends the epilogue runs as oneDNN's post-op or as our pass after the convolution, whichever
    // siluPlacement_ finds faster; one before a residual sum stays a post-op.
    siluAfter_ = !stages_.empty() && stages_.back().kind == ConvEpilogueKind::Silu;
    if (siluAfter_) postOps_.pop_back();
    siluPlacement_.reset();
    plans_.clear();
    last_ = nullptr;
    pixelGemvAnswer_.forget();
    dilatedTapsAnswer_.forget();
    ownWinogradAnswer_.forget();
    slabs_.clear();
    winogradSlabs_.clear();
    return true;
  }

  // Float tensors, and a residual of exactly the Conv's output shape (no broadcasting in a sum post-op).
  bool canFuseEpilogue(const KernelContext& ctx) const override {
    std::vector<const TensorValue*> parts = ctx.inputParts(0);
    auto scaled = ctx.scaledInput(0);  // its operand: the product is not made for this
    const TensorValue& x = scaled ? *scaled->first : parts.empty() ? ctx.input(0) : *parts[0];
    const TensorValue& w = ctx.input(1);
    if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() < 3 || x.rank() > 5 ||
        w.rank() != x.rank())
      return false;
    for (const PostOp& op : postOps_) {
      if (op.residual < 0) continue;
      const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
      if (r.dtype() != DataType::Float || r.rank() != x.rank() || r.dim(0) != x.dim(0) ||
          r.dim(1) != w.dim(0))
        return false;
      auto g = outputDims(ctx, ctx.inputDims(0), w);
      if (!g || *g != r.dims()) return false;
    }
    return true;
  }

  bool acceptsChannelsLast(size_t input) const override { return input == 0 || input == kEpilogueOperands; }
  // Only a Winograd Conv: any other would reorder the blocks into its own layout, and a producer with two such
  // readers is better off reordering once itself.
  bool acceptsBlocked16(size_t input) const override {
    return winogradBlocks_ && (input == 0 || input == kEpilogueOperands);
  }
  bool producesChannelsLast() const override { return true; }

  Expected<void> run(KernelContext& ctx) override {
    const TensorValue& w = ctx.input(1);
    bool fused = ctx.fusingEpilogue() && (!postOps_.empty() || siluAfter_);
    const TensorValue* scale = nullptr;  // a channel scale taken into the weights this run
    std::vector<const TensorValue*> parts;
    auto scaled = ctx.scaledInput(0);
    if (scaled && takesScale(ctx, *scaled->first, *scaled->second, w)) {
      parts = {scaled->first};
      scale = scaled->second;
    } else if (scaled && isChannelScale(*scaled->first, *scaled->second)) {
      parts = {&multiply(ctx, *scaled->first, *scaled->second)};
    } else {
      parts = ctx.inputParts(0);
      if (parts.empty() || !takesParts(ctx, parts, w, fused)) parts = {&ctx.input(0)};  // joined or multiplied
    }
    const TensorValue& x = *parts[0];
    if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() < 3 || x.rank() > 5 ||
        w.rank() != x.rank()) {
      implementation_ = "reference";  // the profile says so
      return runReferenceKernel(ctx);
    }
    const std::span<const ConvEpilogueStage> stages = fused ? std::span<const ConvEpilogueStage>(stages_)
                                                            : std::span<const ConvEpilogueStage>();
    if (parts.size() == 1 && !scale && pixelGemvApplies(ctx, x, w, stages)) {
      winograd_ = false;
      static const std::string kPixelGemv = "pixel-gemv:" + std::string(cpuIsaName(cpuIsa()));  // fixed per process
      implementation_ = kPixelGemv;
      return pixelGemv_.run(ctx, x, w, stages);
    }
    if (parts.size() == 1 && !scale && dilatedTapsPay(ctx, x, w, stages)) {
      winograd_ = false;
      static const std::string kTaps = "dilated-taps:" + std::string(cpuIsaName(cpuIsa()));  // fixed per process
      implementation_ = kTaps;
      return dilatedTaps_.run(ctx, x, w, stages);
    }
    if (parts.size() == 1 && !scale && ownWinogradPays(ctx, x, w, stages)) {
      winograd_ = true;
      static const std::string kOwn = "winograd-4x3:" + std::string(cpuIsaName(cpuIsa()));  // fixed per process
      implementation_ = kOwn;
      return ownWinograd_.run(ctx, x, w, stages);
    }
    if (ctx.pool().sharesCores() && parts.size() == 1 && !scale) {
      auto slabbed = winogradSlabs_.run(ctx, x, w, constantWeights_ || ctx.inputIsConstant(1), postOps_, fused,
                                        implementation_);
      if (!slabbed) return slabbed.error();
      if (*slabbed) {
        winograd_ = true;
        applySiluAfter(ctx, **slabbed, fused);
        return {};
      }
    }
    if (ctx.pool().sharesCores()) {
      auto slabbed =
          slabs_.run(ctx, parts, w, constantWeights_ || ctx.inputIsConstant(1), postOps_, fused, implementation_);
      if (!slabbed) return slabbed.error();
      winograd_ = false;
      if (*slabbed) {
        applySiluAfter(ctx, **slabbed, fused);
        return {};
      }
    }
    // Per thread count too: oneDNN fixes a primitive's team size when it creates it.
    const int threads = ctx.pool().dnnlThreads();
    const bool constantWeights = constantWeights_ || ctx.inputIsConstant(1);
    const bool siluPostOp = fused && siluAfter_ && siluPlacement_.postOp();
    if (!last_ || !constantWeights || !last_->first.matches(parts, fused, siluPostOp, threads)) {
      PlanKey key{{}, fused, siluPostOp, threads};
      for (const TensorValue* part : parts) key.parts.push_back({part->dims(), layoutTag(*part)});
      auto it = plans_.find(key);
      if (it == plans_.end() || !constantWeights) {
        auto plan = makePlan(ctx, parts, w, fused, siluPostOp);
        if (!plan) return plan.error();
        it = plans_.insert_or_assign(key, std::move(*plan)).first;
      }
      last_ = &*it;
    }
    ConvPlan& plan = last_->second;
    const auto started = std::chrono::steady_clock::now();
    winograd_ = plan.winograd;
    implementation_ = plan.implementation;
    auto y = ctx.allocateOutput(0, DataType::Float, plan.outDims);
    if (!y) return y.error();
    if (plan.dstTag == blocked16Tag(size_t(x.rank())))
      (*y)->setBlocked16(true);
    else
      (*y)->setChannelsLast(plan.dstTag != plainTag(size_t(x.rank())));
    if (!stream_) stream_ = dnnl::stream(cpuEngine());
    dnnl::stream& stream = stream_;
    if (!plan.userDst)
      plan.userDst = memory({plan.outDims, memory::data_type::f32, plan.dstTag}, cpuEngine(), (*y)->raw());
    else
      plan.userDst.set_data_handle((*y)->raw());
    memory& userDst = plan.userDst;
    memory dst = userDst;
    if (plan.dstReorder) {
      if (!plan.dstBlocked) {
        plan.dstBlocked = memory(plan.parts[0].pd.dst_desc(), cpuEngine());
        plan.fromBlocked = dnnl::reorder(plan.dstBlocked, userDst);
      }
      dst = plan.dstBlocked;
    }
    for (const PostOp& op : postOps_) {
      if (!fused || op.residual < 0) continue;
      // The sum post-op adds to what dst holds: start it from the residual.
      const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
      memory residual({plan.outDims, memory::data_type::f32, layoutTag(r)}, cpuEngine(),
                      const_cast<void*>(r.raw()));
      if (residual.get_desc() == dst.get_desc()) {
        std::memcpy(dst.get_data_handle(), r.raw(), r.byteSize());
      } else {
        auto [at, added] = plan.residualReorders.try_emplace(layoutTag(r));
        if (added) at->second = dnnl::reorder(residual, dst);
        at->second.execute(stream, residual, dst);
      }
    }
    for (size_t p = 0; p < plan.parts.size(); ++p) {
      ConvPart& part = plan.parts[p];
      const TensorValue& in = *parts[p];
      if (!part.userSrc)
        part.userSrc = memory({in.dims(), memory::data_type::f32, part.srcTag}, cpuEngine(),
                              const_cast<void*>(in.raw()));
      else
        part.userSrc.set_data_handle(const_cast<void*>(in.raw()));
      memory src = part.userSrc;
      if (part.srcReorder) {
        if (!part.srcBlocked) {
          part.srcBlocked = memory(part.pd.src_desc(), cpuEngine());
          part.toBlocked = dnnl::reorder(part.userSrc, part.srcBlocked);
        }
        src = part.srcBlocked;
        part.toBlocked.execute(stream, part.userSrc, src);
      }
      if (scale) {
        scaleWeights(part, w, *scale, stream);
        if (part.scaledArgs.empty()) {
          part.scaledArgs = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, part.scaledWeights}, {DNNL_ARG_DST, dst}};
          if (part.bias) part.scaledArgs[DNNL_ARG_BIAS] = part.bias;
        }
        part.primitive.execute(stream, part.scaledArgs);
        continue;
      }
      if (part.args.empty()) {  // the same memory objects every run (userSrc, userDst or the blocked ones)
        part.args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, part.weights}, {DNNL_ARG_DST, dst}};
        if (part.bias) part.args[DNNL_ARG_BIAS] = part.bias;
      }
      part.primitive.execute(stream, part.args);
    }
    if (plan.dstReorder) plan.fromBlocked.execute(stream, dst, userDst);
    stream.wait();
    if (!siluPostOp) applySiluAfter(ctx, **y, fused);
    if (fused && siluAfter_ && !siluPlacement_.decided()) {
      siluPlacement_.record(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                            threads);
      if (siluPlacement_.decided()) forgetPlansWithSilu(!siluPlacement_.postOp());
    }
    return {};
  }

 private:
  struct PlanKey {
    std::vector<std::pair<Dims, Tag>> parts;  // dims and layout (layoutTag), per part of the data input
    bool fused = false;
    bool siluPostOp = false;  // the trailing SiLU as oneDNN's post-op (SiluPlacement), not our pass
    int threads = 1;
    bool operator<(const PlanKey& o) const {
      return std::tie(parts, fused, siluPostOp, threads) <
             std::tie(o.parts, o.fused, o.siluPostOp, o.threads);
    }
    // Whether a run with these would make this key (without making it).
    bool matches(const std::vector<const TensorValue*>& others, bool otherFused, bool otherSiluPostOp,
                 int otherThreads) const {
      if (fused != otherFused || siluPostOp != otherSiluPostOp || threads != otherThreads ||
          parts.size() != others.size())
        return false;
      for (size_t p = 0; p < parts.size(); ++p)
        if (parts[p].first != others[p]->dims() || parts[p].second != layoutTag(*others[p])) return false;
      return true;
    }
  };

  // Whether this run reads x as it lies and takes the folded channel scale s into the weights: float
  // tensors, one image, s one value per channel of x, constant 1 x 1 weights (the fold checked stride,
  // padding and group), and more pixels than 4x the output channels (the weights' product then costs less
  // than the Mul's). Not in shared-cores runs (ConvSlabs takes the weights as they are).
  bool takesScale(const KernelContext& ctx, const TensorValue& x, const TensorValue& s, const TensorValue& w) const {
    if (!isChannelScale(x, s) || x.rank() != 4 || x.dim(0) != 1 || w.dtype() != DataType::Float || w.rank() != 4 ||
        w.dim(1) != x.dim(1) || w.dim(2) != 1 || w.dim(3) != 1 || ctx.attrInt("group", 1) != 1)
      return false;
    if (!(constantWeights_ || ctx.inputIsConstant(1)) || ctx.pool().sharesCores()) return false;
    return x.dim(2) * x.dim(3) >= 4 * w.dim(0);
  }

  // Whether s scales x channel by channel (per image or for all images): float x of rank 3-5 stored plain
  // or channels-last, whose product multiply() makes and whose scale takesScale may take.
  static bool isChannelScale(const TensorValue& x, const TensorValue& s) {
    if (x.dtype() != DataType::Float || s.dtype() != DataType::Float || x.rank() < 3 || x.rank() > 5 || x.blocked16())
      return false;
    if (s.rank() > x.rank()) return false;
    Dims aligned(size_t(x.rank() - s.rank()), 1);  // s's dims against x's, from the right
    aligned.insert(aligned.end(), s.dims().begin(), s.dims().end());
    if ((aligned[0] != 1 && aligned[0] != x.dim(0)) || aligned[1] != x.dim(1)) return false;
    return std::all_of(aligned.begin() + 2, aligned.end(), [](int64_t d) { return d == 1; });
  }

  // x * s in the kernel's own buffer (kept between runs), in x's layout: where the weights do not take the
  // scale, the Conv reads the product as the Mul would have written it, without an allocation a run.
  const TensorValue& multiply(const KernelContext& ctx, const TensorValue& x, const TensorValue& s) {
    if (product_.dims() != x.dims() || product_.dtype() != DataType::Float || product_.empty())
      product_ = TensorValue::allocate(DataType::Float, x.dims());
    product_.setChannelsLast(x.channelsLast());
    const int64_t n = x.dim(0), c = x.dim(1), pixels = x.count() / std::max<int64_t>(n * c, 1);
    const bool perImage = s.count() == n * c && n > 1;  // else one scale for every image
    const TensorValue plainScale = s.toPlainLayout();  // one pixel: the same bytes, no copy
    // Storage order: channels-last is (N, pixels, C) times (N or 1, 1, C); plain is (N, C, pixels) times
    // (N or 1, C, 1).
    const Dims xs = x.channelsLast() ? Dims{n, pixels, c} : Dims{n, c, pixels};
    const Dims ss = x.channelsLast() ? Dims{perImage ? n : 1, 1, c} : Dims{perImage ? n : 1, c, 1};
    arithLoop(ctx, *binaryLayout(xs, ss), Arith::Mul, x.data<float>(), plainScale.data<float>(),
              product_.data<float>());
    return product_;
  }

  // W[o][c] * s[c] into part.scaledWeights (the primitive's layout) for this run.
  void scaleWeights(ConvPart& part, const TensorValue& w, const TensorValue& s, dnnl::stream& stream) {
    const int64_t m = w.dim(0), c = w.dim(1);
    scaledPlain_.resize(size_t(m * c));
    const TensorValue plainScale = s.toPlainLayout();  // one pixel: the same bytes, no copy
    const float* pw = w.data<float>();
    const float* ps = plainScale.data<float>();
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < c; ++i) scaledPlain_[size_t(o * c + i)] = pw[o * c + i] * ps[i];
    if (!part.scaledWeights) {
      part.scaledWeights = memory(part.pd.weights_desc(), cpuEngine());
      part.plainScaled = memory({w.dims(), memory::data_type::f32, plainTag(4)}, cpuEngine(), scaledPlain_.data());
      part.toScaled = dnnl::reorder(part.plainScaled, part.scaledWeights);
    }
    part.plainScaled.set_data_handle(scaledPlain_.data());
    part.toScaled.execute(stream, part.plainScaled, part.scaledWeights);
  }

  // ConvPixelGemv::applies, kept (KeptAnswer).
  bool pixelGemvApplies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                        std::span<const ConvEpilogueStage> stages) {
    return pixelGemvAnswer_.get(x, stages.size(), constantWeights_ || ctx.inputIsConstant(1),
                                [&] { return ConvPixelGemv::applies(ctx, x, w, stages); });
  }

  // Whether a dilated Conv runs as ConvDilatedTaps: where it fits and oneDNN's direct convolution for it is its
  // im2col GEMM (no AVX-512), which multiplies the padding too. Kept (KeptAnswer).
  bool dilatedTapsPay(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                      std::span<const ConvEpilogueStage> stages) {
    return dilatedTapsAnswer_.get(x, stages.size(), constantWeights_ || ctx.inputIsConstant(1), [&] {
      return ConvDilatedTaps::applies(ctx, x, w, stages) && directConvIsGemm(ctx, x, w);
    });
  }

  // Whether the Conv runs as our own Winograd (ConvWinogradF43): where oneDNN has no Winograd kernel (without
  // AVX-512) and convWinogradPays says Winograd pays. Kept (KeptAnswer).
  bool ownWinogradPays(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                       std::span<const ConvEpilogueStage> stages) {
    return ownWinogradAnswer_.get(x, stages.size(), constantWeights_ || ctx.inputIsConstant(1), [&] {
      if (!ownWinogradWanted()) return false;
      if (!ConvWinogradF43::applies(ctx, x, w, stages)) return false;
      auto out = outputDims(ctx, x.dims(), w);
      return out && convWinogradPays(x.dim(1), w.dim(0), {3, 3}, {1, 1}, {0, 0}, *out);
    });
  }

  // Whether the parts of a concatenated data input run as they lie: float tensors that join along channels
  // (the executor checked that they do), one group, and no residual in a fused epilogue (the sum post-op
  // that adds the parts would add it before the activations that come first). Otherwise the kernel reads the
  // joined input.
  bool takesParts(const KernelContext& ctx, const std::vector<const TensorValue*>& parts,
                  const TensorValue& w, bool fused) const {
    if (ctx.attrInt("group", 1) != 1 || w.dtype() != DataType::Float) return false;
    for (const TensorValue* part : parts)
      if (part->dtype() != DataType::Float || part->rank() != w.rank() || part->rank() < 3 ||
          part->rank() > 5)
        return false;
    for (const PostOp& op : postOps_)
      if (fused && op.residual >= 0) return false;
    return true;
  }

  Expected<Dims> outputDims(const KernelContext& ctx, const Dims& x, const TensorValue& w) const {
    std::vector<int64_t> spatial(x.begin() + 2, x.end());
    std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    auto g = windowGeometry(ctx, spatial, kernel, false);
    if (!g) return g.error();
    Dims out = {x[0], w.dim(0)};
    out.insert(out.end(), g->outSize.begin(), g->outSize.end());
    return out;
  }

  // Input channels [offset, offset + count) of every output channel's filter, contiguous.
  static std::vector<float> weightSlice(const TensorValue& w, int64_t offset, int64_t count) {
    const int64_t m = w.dim(0), c = w.dim(1), taps = w.count() / std::max<int64_t>(m * c, 1);
    std::vector<float> out(size_t(m * count * taps));
    for (int64_t o = 0; o < m; ++o)
      std::memcpy(out.data() + o * count * taps, w.data<float>() + (o * c + offset) * taps,
                  size_t(count * taps) * sizeof(float));
    return out;
  }

  Expected<ConvPlan> makePlan(KernelContext& ctx, const std::vector<const TensorValue*>& parts,
                              const TensorValue& w, bool fused, bool siluPostOp) {
    const TensorValue& x = *parts[0];
    const Dims xDims = parts.size() > 1 ? ctx.inputDims(0) : x.dims();
    int64_t groups = ctx.attrInt("group", 1);
    int64_t c = xDims[1], m = w.dim(0);
    if (groups <= 0 || c % groups != 0 || c / groups != w.dim(1) || m % groups != 0)
      return ctx.error("channels of " + describeTensor(x.dtype(), xDims) + " do not match weights " +
                           w.describe() + " with group " + std::to_string(groups),
                       1);
    std::vector<int64_t> spatial(xDims.begin() + 2, xDims.end());
    std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    auto g = windowGeometry(ctx, spatial, kernel, false);
    if (!g) return g.error();
    ConvPlan plan;
    plan.outDims = {xDims[0], m};
    for (int64_t o : g->outSize) plan.outDims.push_back(o);
    const memory::dims dil = oneDnnDilations(g->dilations);
    Tag tag = plainTag(size_t(x.rank()));
    const TensorValue& bias = ctx.input(2);
    memory::desc biasMd({m}, memory::data_type::f32, Tag::a);
    if (!bias.empty() && (bias.count() != m || bias.dtype() != DataType::Float))
      return ctx.error(
          "bias " + bias.describe() + " does not match " + std::to_string(m) + " output channels", 2);
    try {
      dnnl::stream stream(cpuEngine());
      int64_t offset = 0;  // input channels of the parts before
      bool ownLayouts = false;  // the parts run on our layouts (prefersBlocksOf8)
      for (size_t p = 0; p < parts.size(); ++p) {
        const TensorValue& in = *parts[p];
        const bool first = p == 0, last = p + 1 == parts.size();
        // Blocks of 16 in are reordered when the primitive wants another layout: fixing them as its source
        // layout picks oneDNN's older jit kernels, which ran resnet18's stride-2 and 7 x 7 convs 1.4-1.7x
        // slower than brgconv plus the reorder.
        memory::desc srcAny(in.dims(), memory::data_type::f32, Tag::any);
        // Every part writes (and later ones add to) the first part's choice of output layout.
        memory::desc dstMd = first ? memory::desc(plan.outDims, memory::data_type::f32, Tag::any)
                                   : plan.parts[0].pd.dst_desc();
        memory::dims wDims = w.dims();
        Tag wTag = tag;
        if (groups > 1) {
          wDims = {groups, m / groups};
          wDims.insert(wDims.end(), w.dims().begin() + 1, w.dims().end());
          wTag = plainTag(size_t(x.rank()) + 1);
        }
        std::vector<float> slice;
        if (parts.size() > 1) {
          wDims[1] = in.dim(1);
          slice = weightSlice(w, offset, in.dim(1));
        }
        offset += in.dim(1);
        memory::desc wAny(wDims, memory::data_type::f32, Tag::any);
        const bool biased = first && !bias.empty();
        auto describe = [&](dnnl::algorithm algorithm, const memory::desc& src, const memory::desc& dst) {
          return biased ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, src,
                                                          wAny, biasMd, dst, g->strides, dil, g->padsBegin,
                                                          g->padsEnd)
                        : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, src,
                                                          wAny, dst, g->strides, dil, g->padsBegin, g->padsEnd);
        };
        dnnl::primitive_attr attr;
        dnnl::post_ops post;
        if (!first) post.append_sum(1.0f);
        if (fused && last) {
          appendConvPostOps(post, postOps_);
          if (siluPostOp) post.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
        }
        attr.set_post_ops(post);
        ConvPart part;
        const bool tryWinograd = groups == 1 &&
                                 convWinogradPays(in.dim(1), m, kernel, g->strides, dil, plan.outDims) &&
                                 (constantWeights_ || ctx.inputIsConstant(1));
        bool made = false;
        if (tryWinograd) {
          try {
            part.pd = dnnl::convolution_forward::primitive_desc(
                describe(dnnl::algorithm::convolution_winograd, srcAny, dstMd), attr, cpuEngine());
            made = true;
            if (first) plan.winograd = true;
          } catch (const dnnl::error&) {
          }
        }
        if (!made)
          part.pd = dnnl::convolution_forward::primitive_desc(
              describe(dnnl::algorithm::convolution_direct, srcAny, dstMd), attr, cpuEngine());
        // Our layouts instead: the input as it lies (or channels-last, a cheap reorder of a plain image) and
        // the output as its readers take it (or channels-last, reordered for them: one reorder, not two). The
        // later parts add into the first's output, so they take its choice (a part on blocks of 8 that writes
        // channels-last has only oneDNN's reference kernel).
        if (first ? !made && !in.blocked16() && prefersBlocksOf8(part.pd) : ownLayouts) {
          const Tag lastTag = channelsLastTag(size_t(in.rank()));
          const Tag readersTag = ctx.outputMayBeChannelsLast() ? lastTag : tag;
          const std::pair<Tag, Tag> layouts[] = {{layoutTag(in), readersTag}, {lastTag, readersTag},
                                                 {layoutTag(in), lastTag}, {lastTag, lastTag}};
          for (const auto& [srcTag, dstTag] : layouts) {
            try {
              dnnl::convolution_forward::primitive_desc direct(
                  describe(dnnl::algorithm::convolution_direct,
                           memory::desc(in.dims(), memory::data_type::f32, srcTag),
                           first ? memory::desc(plan.outDims, memory::data_type::f32, dstTag) : dstMd),
                  attr, cpuEngine());
              if (std::string_view(direct.impl_info_str()).starts_with("jit")) {
                part.pd = direct;
                ownLayouts = true;
                break;
              }
            } catch (const dnnl::error&) {
            }
          }
        }
        part.primitive = dnnl::convolution_forward(part.pd);
        if (first) plan.implementation = part.pd.impl_info_str();
        part.channelOffset = offset - in.dim(1);
        const bool constant = constantWeights_ || ctx.inputIsConstant(1);
        if (auto packed = constant ? packedWeights(part) : std::nullopt) {
          part.weights = *packed;
        } else {
          memory userW({wDims, memory::data_type::f32, wTag}, cpuEngine(),
                       slice.empty() ? const_cast<void*>(w.raw()) : slice.data());
          part.weights = memory(part.pd.weights_desc(), cpuEngine());
          dnnl::reorder(userW, part.weights).execute(stream, userW, part.weights);
          stream.wait();  // before the slice goes
        }
        if (biased) {
          part.bias = memory(biasMd, cpuEngine());
          std::memcpy(part.bias.get_data_handle(), bias.raw(), size_t(m) * sizeof(float));
        }
        part.srcTag = layoutTag(in);
        part.srcReorder = part.pd.src_desc() != memory::desc(in.dims(), memory::data_type::f32, part.srcTag);
        plan.parts.push_back(std::move(part));
      }
      // Channels-last output when the readers take it and the primitive does not write plain layout anyway
      // (a blocked layout, Winograd's, is reordered into either), unless the readers take the primitive's
      // blocks of 16 as they are.
      const memory::desc written = plan.parts[0].pd.dst_desc();
      Tag last = channelsLastTag(size_t(x.rank()));
      bool writesPlain = written == memory::desc(plan.outDims, memory::data_type::f32, tag);
      const Tag blocks = blocked16Tag(size_t(x.rank()));
      if (ctx.outputMayBeBlocked16() && TensorValue::canBlock16(plan.outDims) &&
          written == memory::desc(plan.outDims, memory::data_type::f32, blocks))
        plan.dstTag = blocks;
      else
        plan.dstTag = ctx.outputMayBeChannelsLast() && !writesPlain ? last : tag;
      plan.dstReorder = written != memory::desc(plan.outDims, memory::data_type::f32, plan.dstTag);
      // The profile says when the time includes reordering: per run, not a cost of the product itself.
      const bool srcReorder =
          std::any_of(plan.parts.begin(), plan.parts.end(), [](const ConvPart& part) { return part.srcReorder; });
      if (srcReorder || plan.dstReorder)
        plan.implementation += srcReorder && plan.dstReorder ? " (reorders src, dst)"
                               : srcReorder                  ? " (reorders src)"
                                                             : " (reorders dst)";
      if (fused && siluAfter_ && !siluPostOp) plan.implementation += " (SiLU after)";  // applySiluAfter's pass
    } catch (const dnnl::error& e) {
      return ctx.error(std::string("oneDNN could not create the convolution: ") + e.what());
    }
    return plan;
  }

  // Constant weights another plan (another thread count or input size) already holds in the layout `part`
  // wants, so that each plan does not keep its own copy.
  std::optional<memory> packedWeights(const ConvPart& part) const {
    for (const auto& [key, plan] : plans_)
      for (const ConvPart& other : plan.parts)
        if (other.channelOffset == part.channelOffset && other.pd.weights_desc() == part.pd.weights_desc())
          return other.weights;
    return std::nullopt;
  }

  std::string_view algorithm() const override { return winograd_ ? "winograd" : ""; }
  std::string_view implementation() const override { return implementation_; }

  bool constantWeights_;
  bool winogradBlocks_;  // takesWinogradBlocks
  bool winograd_ = false;
  std::string implementation_;
  // The epilogue's SiLU in place over output 0 (y), when it is the last stage of a fused epilogue
  // (siluAfter_) and not oneDNN's post-op. Element-wise, so any of the output's layouts will do (blocked16
  // has no padding: whole blocks only). Slabs (shared-cores runs) always take this pass: their plans keep
  // their post-ops.
  void applySiluAfter(KernelContext& ctx, TensorValue& y, bool fused) const {
    if (!fused || !siluAfter_) return;
    float* out = static_cast<float*>(y.raw());
    ctx.parallelFor(y.count(), 16384, [&](int64_t begin, int64_t end) {
      fastSilu(out + begin, out + begin, end - begin, 0, 0);
    });
  }

  // Once SiluPlacement has chosen, the plans made for the other choice go (their weights were packed too).
  void forgetPlansWithSilu(bool postOp) {
    std::erase_if(plans_, [&](const auto& entry) { return entry.first.siluPostOp == postOp; });
    last_ = nullptr;
  }

  std::vector<PostOp> postOps_;  // without the trailing SiLU (siluAfter_)
  bool siluAfter_ = false;       // the epilogue ends with a SiLU: oneDNN's post-op or applySiluAfter
  SiluPlacement siluPlacement_;
  std::vector<ConvEpilogueStage> stages_;  // postOps_ as the chain's stages, for ConvPixelGemv
  ConvPixelGemv pixelGemv_;
  std::map<PlanKey, ConvPlan> plans_;  // per input shape and layout (per part), epilogue or not
  std::pair<const PlanKey, ConvPlan>* last_ = nullptr;  // the last run's (map nodes stay where they are)
  dnnl::stream stream_;
  KeptAnswer pixelGemvAnswer_;
  ConvDilatedTaps dilatedTaps_;
  KeptAnswer dilatedTapsAnswer_;
  ConvWinogradF43 ownWinograd_;
  KeptAnswer ownWinogradAnswer_;
  std::vector<float> scaledPlain_;  // scaleWeights' product, plain [M, C]
  TensorValue product_;             // multiply()'s
  ConvSlabs slabs_;                     // shared-cores runs
  WinogradSlabs winogradSlabs_;         // shared-cores runs of Winograd Convs
};

Expected<std::unique_ptr<Kernel>> makeConv(const PrepareContext& p) {
  const onyx::Tensor* weights = p.constantInputs.size() > 1 ? p.constantInputs[1] : nullptr;
  return std::unique_ptr<Kernel>(std::make_unique<DnnlConv>(weights, takesWinogradBlocks(p.node, weights)));
}

}  // namespace

void registerConvDnnlCpuKernels(KernelRegistry& r) {
  KernelDef conv = kernelFactory("Conv", makeConv, 1);
  conv.variant = "dnnl";
  conv.priority = 20;
  conv.flops = convFlops;
  r.add(conv);
}

}  // namespace onyx::exec
