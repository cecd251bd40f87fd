// Winograd Convs as channel slabs in shared-cores runs (conv_slabs_dnnl.h, WinogradSlabs).
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "exec/cpu/cpu_isa.h"
#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"
#include "exec/thread_pool.h"
#include "ops/nn/conv_slabs_dnnl.h"

namespace onyx::exec {

namespace {

constexpr int64_t kBlock = 16;
// Slabs of fewer than 64 output channels transform the input too often for their products: on resnet18's
// convs, with two free cores, slabs of 32 took 0.85x (layer1's 64 channels) to 1.3x (layer2, layer3) the time
// of slabs of 64, which took 0.5-0.6x the whole Conv's (layer1's 64 channels stay whole).
constexpr int64_t kMinBlocksPerSlab = 4;

// Copies channels [first, first + channels) of a [allChannels, pixels] tensor stored as `layout` into (toBlocks)
// or out of a dense buffer of those channels in blocks of 16 ([ceil(channels / 16), pixels, 16]).
template <bool toBlocks>
void copyBlocks(float* blocks, int64_t channels, float* tensor, bool channelsLast, bool blocked16,
                int64_t allChannels, int64_t first, int64_t pixels) {
  if (blocked16) {  // `first` starts a block and the channels fill theirs: the same elements, in one piece
    float* at = tensor + first * pixels;
    const size_t bytes = size_t(channels * pixels) * sizeof(float);
    if constexpr (toBlocks)
      std::memcpy(blocks, at, bytes);
    else
      std::memcpy(at, blocks, bytes);
    return;
  }
  for (int64_t block = 0; block * kBlock < channels; ++block) {
    const int64_t width = std::min(kBlock, channels - block * kBlock), channel = first + block * kBlock;
    float* row = blocks + block * pixels * kBlock;
    if (channelsLast) {
      if constexpr (toBlocks)
        copyRows(tensor + channel, allChannels, row, kBlock, pixels, width);
      else
        copyRows(row, kBlock, tensor + channel, allChannels, pixels, width);
      continue;
    }
    for (int64_t p = 0; p < pixels; ++p, row += kBlock) {
      float* at = tensor + channel * pixels + p;
      for (int64_t c = 0; c < width; ++c) {
        if constexpr (toBlocks)
          row[c] = at[c * pixels];
        else
          at[c * pixels] = row[c];
      }
    }
  }
}

}  // namespace

struct WinogradSlabs::Plan {
  struct Shape {  // slabs of as many channels share a primitive
    int64_t channels = 0;
    dnnl::convolution_forward primitive;
    memory::desc dst;         // dense blocks of 16 of its channels
    memory::desc weights;     // the primitive's layout
    memory::desc scratchpad;  // user-managed: slabThreadBuffer
  };
  struct Slab {
    int64_t channelBegin = 0, channels = 0;
    size_t shape = 0;
    memory weights;  // in its primitive's layout
    memory bias;     // its channels of the bias; null without one
  };
  Dims outDims;
  memory::desc src;            // the whole input in blocks of 16
  std::vector<float> srcCopy;  // where the input lies otherwise: reordered into it
  dnnl::reorder toBlocks;
  std::vector<Shape> shapes;
  std::vector<Slab> slabs;
  memory bias;  // all of it
  std::string implementation;
};

WinogradSlabs::WinogradSlabs() = default;
WinogradSlabs::~WinogradSlabs() = default;

void WinogradSlabs::clear() {
  plans_.clear();
}

int64_t WinogradSlabs::slabCount(int64_t blocks, int threads) {
  return std::clamp<int64_t>(std::min(4 * int64_t(threads), blocks / kMinBlocksPerSlab), 1, blocks);
}

WinogradSlabs::Layout WinogradSlabs::layoutOf(const TensorValue& t) {
  return t.blocked16() ? Layout::kBlocks16 : t.channelsLast() ? Layout::kChannelsLast : Layout::kPlain;
}

Expected<TensorValue*> WinogradSlabs::run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                          bool constantWeights, const std::vector<ConvPostOp>& postOps,
                                          bool fused, std::string& implementation) {
  if (!ctx.pool().sharesCores() || cpuIsa() != CpuIsa::Avx512 || x.rank() != 4 || x.dim(0) != 1 ||
      x.dtype() != DataType::Float || w.rank() != 4 || w.dtype() != DataType::Float || !constantWeights)
    return nullptr;
  Key key{x.dims(), layoutOf(x), Layout::kPlain, Layout::kPlain, fused};
  key.dst = ctx.outputMayBeBlocked16() && w.dim(0) % kBlock == 0 ? Layout::kBlocks16
            : ctx.outputMayBeChannelsLast()                      ? Layout::kChannelsLast
                                                                 : Layout::kPlain;
  const TensorValue* residual = nullptr;  // the sum post-op adds to what its destination holds
  for (const ConvPostOp& op : postOps)
    if (fused && op.residual >= 0) residual = &ctx.epilogueOperand(size_t(op.residual));
  if (residual) key.residual = layoutOf(*residual);
  auto it = plans_.find(key);
  if (it == plans_.end()) it = plans_.emplace(key, makePlan(ctx, x, w, postOps, fused)).first;
  if (!it->second) return nullptr;
  Plan& plan = *it->second;
  if (residual && (residual->dims() != plan.outDims || residual->dtype() != DataType::Float)) return nullptr;
  auto y = ctx.allocateOutput(0, DataType::Float, plan.outDims);
  if (!y) return y.error();
  (*y)->setBlocked16(key.dst == Layout::kBlocks16);
  if (key.dst != Layout::kBlocks16) (*y)->setChannelsLast(key.dst == Layout::kChannelsLast);
  float* out = (*y)->data<float>();
  const float* source = x.data<float>();
  try {
    if (!plan.srcCopy.empty()) {
      memory lying({x.dims(), memory::data_type::f32, key.src == Layout::kChannelsLast ? Tag::acdb : Tag::abcd},
                   cpuEngine(), const_cast<float*>(source));
      memory blocked(plan.src, cpuEngine(), plan.srcCopy.data());
      dnnl::stream stream(cpuEngine());
      plan.toBlocks.execute(stream, lying, blocked);
      stream.wait();
      source = plan.srcCopy.data();
    }
    const int64_t outChannels = plan.outDims[1], pixels = plan.outDims[2] * plan.outDims[3];
    ctx.pool().runTasks(int64_t(plan.slabs.size()), [&](int64_t s) {
      const Plan::Slab& slab = plan.slabs[size_t(s)];
      const Plan::Shape& shape = plan.shapes[slab.shape];
      thread_local dnnl::stream stream(cpuEngine());
      const bool inPlace = key.dst == Layout::kBlocks16;
      float* target = inPlace ? out + slab.channelBegin * pixels : slabThreadBuffer(kSlabOutput, shape.dst.get_size());
      if (residual)
        copyBlocks<true>(target, slab.channels, const_cast<float*>(residual->data<float>()),
                         key.residual == Layout::kChannelsLast, key.residual == Layout::kBlocks16, outChannels,
                         slab.channelBegin, pixels);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(plan.src, cpuEngine(), const_cast<float*>(source))},
                                           {DNNL_ARG_WEIGHTS, slab.weights},
                                           {DNNL_ARG_DST, memory(shape.dst, cpuEngine(), target)}};
      if (slab.bias) args[DNNL_ARG_BIAS] = slab.bias;
      if (shape.scratchpad.get_size() > 0)
        args[DNNL_ARG_SCRATCHPAD] =
            memory(shape.scratchpad, cpuEngine(), slabThreadBuffer(kSlabScratchpad, shape.scratchpad.get_size()));
      shape.primitive.execute(stream, args);
      stream.wait();
      if (!inPlace)
        copyBlocks<false>(target, slab.channels, out, key.dst == Layout::kChannelsLast, false, outChannels,
                          slab.channelBegin, pixels);
    });
  } catch (const dnnl::error& e) {
    return ctx.error(std::string("oneDNN could not run a slab of the Winograd convolution: ") + e.what());
  }
  implementation = plan.implementation;
  return *y;
}

std::unique_ptr<WinogradSlabs::Plan> WinogradSlabs::makePlan(KernelContext& ctx, const TensorValue& x,
                                                            const TensorValue& w,
                                                            const std::vector<ConvPostOp>& postOps, bool fused) {
  const int64_t channels = x.dim(1), height = x.dim(2), width = x.dim(3), m = w.dim(0);
  if (ctx.attrInt("group", 1) != 1 || w.dim(1) != channels) return nullptr;
  auto g = windowGeometry(ctx, {height, width}, {w.dim(2), w.dim(3)}, false);
  if (!g) return nullptr;
  const memory::dims dilations = oneDnnDilations(g->dilations);
  auto plan = std::make_unique<Plan>();
  plan->outDims = {1, m, g->outSize[0], g->outSize[1]};
  if (!convWinogradPays(channels, m, {w.dim(2), w.dim(3)}, g->strides, dilations, plan->outDims)) return nullptr;
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty() && (bias.count() != m || bias.dtype() != DataType::Float)) return nullptr;
  if (!bias.empty()) {
    plan->bias = memory(memory::desc({m}, memory::data_type::f32, Tag::a), cpuEngine());
    std::memcpy(plan->bias.get_data_handle(), bias.raw(), size_t(m) * sizeof(float));
  }
  const int64_t blocks = (m + kBlock - 1) / kBlock;
  const int64_t count = slabCount(blocks, ctx.pool().threadCount());
  if (count < 2) return nullptr;
  plan->src = memory::desc({1, channels, height, width}, memory::data_type::f32, Tag::aBcd16b);
  try {
    dnnl::stream stream(cpuEngine());
    for (const SlabRange& range : blockRanges(m, kBlock, count)) {
      Plan::Slab slab;
      slab.channelBegin = range.begin;
      slab.channels = range.size;
      slab.shape = 0;
      while (slab.shape < plan->shapes.size() && plan->shapes[slab.shape].channels != slab.channels) ++slab.shape;
      if (slab.shape == plan->shapes.size()) {
        Plan::Shape shape;
        shape.channels = slab.channels;
        shape.dst = memory::desc({1, slab.channels, plan->outDims[2], plan->outDims[3]}, memory::data_type::f32,
                                 Tag::aBcd16b);
        const memory::desc wAny({slab.channels, channels, w.dim(2), w.dim(3)}, memory::data_type::f32, Tag::any);
        const memory::desc biasMd({slab.channels}, memory::data_type::f32, Tag::a);
        const auto desc =
            bias.empty()
                ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                  dnnl::algorithm::convolution_winograd, plan->src, wAny, shape.dst,
                                                  g->strides, dilations, g->padsBegin, g->padsEnd)
                : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                  dnnl::algorithm::convolution_winograd, plan->src, wAny, biasMd,
                                                  shape.dst, g->strides, dilations, g->padsBegin, g->padsEnd);
        dnnl::post_ops post;
        if (fused) appendConvPostOps(post, postOps);
        dnnl::primitive_attr attr;
        attr.set_post_ops(post);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
        if (pd.src_desc() != plan->src || pd.dst_desc() != shape.dst) return nullptr;
        if (plan->implementation.empty()) plan->implementation = std::string("slabs:channels:") + pd.impl_info_str();
        shape.primitive = dnnl::convolution_forward(pd);
        shape.weights = pd.weights_desc();
        shape.scratchpad = pd.scratchpad_desc();
        plan->shapes.push_back(std::move(shape));
      }
      // Its filters lie in one piece of the OIHW weights.
      const int64_t filter = channels * w.dim(2) * w.dim(3);
      memory user({{slab.channels, channels, w.dim(2), w.dim(3)}, memory::data_type::f32, Tag::abcd}, cpuEngine(),
                  const_cast<float*>(w.data<float>()) + slab.channelBegin * filter);
      slab.weights = memory(plan->shapes[slab.shape].weights, cpuEngine());
      dnnl::reorder(user, slab.weights).execute(stream, user, slab.weights);
      stream.wait();
      if (plan->bias)
        slab.bias = memory(memory::desc({slab.channels}, memory::data_type::f32, Tag::a), cpuEngine(),
                           static_cast<float*>(plan->bias.get_data_handle()) + slab.channelBegin);
      plan->slabs.push_back(std::move(slab));
    }
    if (!x.blocked16()) {
      plan->srcCopy.resize(plan->src.get_size() / sizeof(float));
      const memory::desc lying({x.dims(), memory::data_type::f32, x.channelsLast() ? Tag::acdb : Tag::abcd});
      plan->toBlocks = dnnl::reorder(memory(lying, cpuEngine(), nullptr), memory(plan->src, cpuEngine(), nullptr));
    }
  } catch (const dnnl::error&) {
    return nullptr;  // oneDNN has no Winograd primitive for these slabs: the whole tensor instead
  }
  return plan;
}

}  // namespace onyx::exec
