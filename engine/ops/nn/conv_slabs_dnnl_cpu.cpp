// Conv as row or channel slabs in shared-cores runs (conv_slabs_dnnl.h).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

#include <unistd.h>

#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"
#include "exec/thread_pool.h"
#include "ops/nn/conv_slabs_dnnl.h"

namespace onyx::exec {

int64_t convFlops(const KernelContext& ctx);  // conv_cpu.cpp

namespace {

// Where a slab's rows lie: output rows [outBegin, outBegin + outRows) read input rows [inBegin, inBegin +
// inRows) with padTop/padBottom rows of zeros around them.
struct SlabRows {
  int64_t outBegin = 0, outRows = 0, inBegin = 0, inRows = 0, padTop = 0, padBottom = 0;
};

// A dense 4-D descriptor of `rows` rows of a [1, C, *, W] tensor as it lies (channels-last or plain). Rows
// of a batch-1 tensor in either layout start at row * rowElements and, channels-last, lie contiguously.
memory::desc rowsDesc(int64_t channels, int64_t rows, int64_t width, bool channelsLast, int64_t allRows) {
  const memory::dims dims = {1, channels, rows, width};
  if (channelsLast) return memory::desc(dims, memory::data_type::f32, Tag::acdb);
  return memory::desc(dims, memory::data_type::f32,
                      memory::dims{channels * allRows * width, allRows * width, width, 1});
}

int64_t rowElements(int64_t channels, int64_t width, bool channelsLast) {
  return channelsLast ? channels * width : width;
}

std::atomic<int64_t> cachedElementsForTests{-1};

// The floats a core's L2 cache holds (1 MiB where the system does not say): weights that fit stay there from
// one slab to the next on the same core.
int64_t cachedElements() {
  static const int64_t bytes = [] {
    const long size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return size > 0 ? int64_t(size) : int64_t(1) << 20;
  }();
  const int64_t forTests = cachedElementsForTests.load();
  return forTests >= 0 ? forTests : bytes / int64_t(sizeof(float));
}

// Copies output rows [row, row + rows) of channels [channel, channel + channels) of a [1, allChannels, height,
// width] tensor stored channels-last or plain into (toBuffer) or out of a dense channels-last buffer of just
// those (a slab's output).
template <bool toBuffer>
void copySlab(float* buffer, float* tensor, bool channelsLast, int64_t allChannels, int64_t height, int64_t width,
              int64_t row, int64_t rows, int64_t channel, int64_t channels) {
  const int64_t pixels = rows * width, first = row * width;
  if (channelsLast) {
    float* at = tensor + first * allChannels + channel;
    if constexpr (toBuffer)
      copyRows(at, allChannels, buffer, channels, pixels, channels);
    else
      copyRows(buffer, channels, at, allChannels, pixels, channels);
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {  // along the tensor's rows, across the buffer's
    float* at = tensor + (channel + c) * height * width + first;
    for (int64_t p = 0; p < pixels; ++p) {
      if constexpr (toBuffer)
        buffer[p * channels + c] = at[p];
      else
        at[p] = buffer[p * channels + c];
    }
  }
}

// Output rows [0, outRows) split evenly into `count` slabs, each with the input rows of [0, height) its
// windows cover and the padding it has at either end; nullopt where a slab would read padding only.
std::optional<std::vector<SlabRows>> cutRows(int64_t outRows, int64_t count, int64_t height, int64_t stride,
                                             int64_t extent, int64_t padBegin) {
  std::vector<SlabRows> slabs;
  for (const SlabRange& range : blockRanges(outRows, 1, count)) {
    SlabRows slab;
    slab.outBegin = range.begin;
    slab.outRows = range.size;
    const int64_t first = slab.outBegin * stride - padBegin;
    const int64_t end = (slab.outBegin + slab.outRows - 1) * stride - padBegin + extent;
    slab.inBegin = std::max<int64_t>(0, first);
    slab.inRows = std::min(height, end) - slab.inBegin;
    slab.padTop = slab.inBegin - first;
    slab.padBottom = end - std::min(height, end);
    if (slab.inRows <= 0) return std::nullopt;
    slabs.push_back(slab);
  }
  return slabs;
}

}  // namespace

struct ConvSlabs::Plan {
  struct Shape {  // slabs of one geometry share primitives
    int64_t inRows = 0, outRows = 0, padTop = 0, padBottom = 0, channels = 0;  // channels: output ones
    std::vector<dnnl::convolution_forward> primitives;  // per part
    std::vector<memory::desc> weightLayouts;            // per part: the primitive's weights layout
    std::vector<memory::desc> scratchpads;              // per part (user-managed: slabThreadBuffer)
  };
  struct Slab {
    SlabRows rows;
    int64_t channelBegin = 0, channels = 0;  // the output channels it writes
    size_t shape = 0;
    std::vector<memory> weights;  // per part, in its shape's layout
    memory bias;                  // its channels of the bias; null without one
  };
  Dims outDims;
  bool dstChannelsLast = false;
  // Slabs of output channels over all rows (chooseChannelSlabs), not of rows.
  bool byChannels = false;
  // Whether slabs write their output where it lies (row slabs of channels-last output) or, dense and
  // channels-last, into a buffer of their thread, then copied into place: oneDNN's fast convolutions write
  // dense tensors only, and channels-last where they read it.
  bool inPlace() const { return !byChannels && dstChannelsLast; }
  // Per part: a plain part is reordered into a channels-last copy first (oneDNN has only reference code for
  // slabs of plain tensors); null for a channels-last part, read where it lies.
  std::vector<std::unique_ptr<std::vector<float>>> copies;
  std::vector<dnnl::reorder> toChannelsLast;
  std::vector<Slab> slabs;
  std::vector<Shape> shapes;
  memory bias;  // all of it
  std::string implementation;
};

ConvSlabs::ConvSlabs() = default;
ConvSlabs::~ConvSlabs() = default;

void ConvSlabs::clear() {
  plans_.clear();
}

void ConvSlabs::setCachedElementsForTests(int64_t elements) {
  cachedElementsForTests.store(elements);
}

void appendConvPostOps(dnnl::post_ops& post, const std::vector<ConvPostOp>& ops) {
  for (const ConvPostOp& op : ops) {
    if (op.residual >= 0)
      post.append_sum(1.0f);
    else
      post.append_eltwise(1.0f, op.algorithm, op.alpha, op.beta);
  }
}

bool ConvSlabs::chooseChannelSlabs(int64_t weightElements, int64_t inputElements, int64_t rowSlabs,
                                   int64_t channelSlabs, int64_t cachedElements) {
  if (channelSlabs < 2) return false;
  if (rowSlabs < 2) return true;
  const int64_t rowsRead = (weightElements > cachedElements ? rowSlabs : 1) * weightElements + inputElements;
  return weightElements + channelSlabs * inputElements < rowsRead;
}

Expected<TensorValue*> ConvSlabs::run(KernelContext& ctx, const std::vector<const TensorValue*>& parts,
                                      const TensorValue& w, bool constantWeights,
                                      const std::vector<ConvPostOp>& postOps, bool fused,
                                      std::string& implementation) {
  const TensorValue& x = *parts[0];
  if (!ctx.pool().sharesCores() || x.rank() != 4 || x.dim(0) != 1 || w.rank() != 4 ||
      w.dtype() != DataType::Float || !constantWeights)
    return nullptr;
  for (const TensorValue* part : parts)
    if (part->dtype() != DataType::Float || part->rank() != 4 || part->dim(0) != 1 ||
        part->dim(2) != x.dim(2) || part->dim(3) != x.dim(3) || part->blocked16())
      return nullptr;
  for (const ConvPostOp& op : postOps)  // slabs read rows of plain or channels-last storage only
    if (fused && op.residual >= 0 && ctx.epilogueOperand(size_t(op.residual)).blocked16()) return nullptr;
  Key key{{}, fused, ctx.outputMayBeChannelsLast()};
  for (const TensorValue* part : parts) key.parts.push_back({part->dims(), part->channelsLast()});
  auto it = plans_.find(key);
  if (it == plans_.end()) {
    it = plans_.emplace(key, makePlan(ctx, parts, w, postOps, fused, key.dstChannelsLast)).first;
  }
  if (!it->second) return nullptr;
  Plan& plan = *it->second;
  const int64_t outChannels = plan.outDims[1], outHeight = plan.outDims[2], outWidth = plan.outDims[3];
  auto y = ctx.allocateOutput(0, DataType::Float, plan.outDims);
  if (!y) return y.error();
  (*y)->setChannelsLast(plan.dstChannelsLast);
  float* out = (*y)->data<float>();
  const float* residual = nullptr;  // the sum post-op adds to what its destination holds
  for (const ConvPostOp& op : postOps) {
    if (!fused || op.residual < 0) continue;
    const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
    residual = r.data<float>();
    if (plan.inPlace()) std::memcpy(out, r.raw(), r.byteSize());  // layouts checked in makePlan
  }
  const int64_t outRowElements = rowElements(outChannels, outWidth, plan.dstChannelsLast);
  std::vector<const float*> sources;
  for (size_t p = 0; p < parts.size(); ++p) {
    const TensorValue& in = *parts[p];
    if (!plan.copies[p]) {
      sources.push_back(in.data<float>());
      continue;
    }
    memory plain({in.dims(), memory::data_type::f32, Tag::abcd}, cpuEngine(), const_cast<float*>(in.data<float>()));
    memory copy({in.dims(), memory::data_type::f32, Tag::acdb}, cpuEngine(), plan.copies[p]->data());
    dnnl::stream stream(cpuEngine());
    plan.toChannelsLast[p].execute(stream, plain, copy);
    stream.wait();
    sources.push_back(plan.copies[p]->data());
  }
  try {
    ctx.pool().runTasks(int64_t(plan.slabs.size()), [&](int64_t s) {
      const Plan::Slab& slab = plan.slabs[size_t(s)];
      Plan::Shape& shape = plan.shapes[slab.shape];
      thread_local dnnl::stream stream(cpuEngine());
      float* target = out + slab.rows.outBegin * outRowElements;
      memory::desc dstMd = rowsDesc(outChannels, slab.rows.outRows, outWidth, true, outHeight);
      if (!plan.inPlace()) {
        target = slabThreadBuffer(kSlabOutput, size_t(slab.channels * slab.rows.outRows * outWidth) * sizeof(float));
        dstMd = rowsDesc(slab.channels, slab.rows.outRows, outWidth, true, slab.rows.outRows);
        if (residual)
          copySlab<true>(target, const_cast<float*>(residual), plan.dstChannelsLast, outChannels, outHeight, outWidth,
                         slab.rows.outBegin, slab.rows.outRows, slab.channelBegin, slab.channels);
      }
      memory dst(dstMd, cpuEngine(), target);
      for (size_t p = 0; p < parts.size(); ++p) {
        const TensorValue& in = *parts[p];
        const int64_t channels = in.dim(1), height = in.dim(2), width = in.dim(3);
        memory src(rowsDesc(channels, slab.rows.inRows, width, true, height), cpuEngine(),
                   const_cast<float*>(sources[p]) + slab.rows.inBegin * rowElements(channels, width, true));
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, slab.weights[p]}, {DNNL_ARG_DST, dst}};
        if (p == 0 && slab.bias) args[DNNL_ARG_BIAS] = slab.bias;
        const memory::desc scratchpadMd = shape.scratchpads[p];
        if (scratchpadMd.get_size() > 0)
          args[DNNL_ARG_SCRATCHPAD] =
              memory(scratchpadMd, cpuEngine(), slabThreadBuffer(kSlabScratchpad, scratchpadMd.get_size()));
        shape.primitives[p].execute(stream, args);
      }
      stream.wait();
      if (!plan.inPlace())
        copySlab<false>(target, out, plan.dstChannelsLast, outChannels, outHeight, outWidth, slab.rows.outBegin,
                        slab.rows.outRows, slab.channelBegin, slab.channels);
    });
  } catch (const dnnl::error& e) {
    return ctx.error(std::string("oneDNN could not run a slab of the convolution: ") + e.what());
  }
  implementation = plan.implementation;
  return *y;
}

std::unique_ptr<ConvSlabs::Plan> ConvSlabs::makePlan(KernelContext& ctx,
                                                    const std::vector<const TensorValue*>& parts,
                                                    const TensorValue& w, const std::vector<ConvPostOp>& postOps,
                                                    bool fused, bool dstChannelsLast) {
  const TensorValue& x = *parts[0];
  const int64_t groups = ctx.attrInt("group", 1);
  int64_t channels = 0;
  for (const TensorValue* part : parts) channels += part->dim(1);
  const int64_t m = w.dim(0), height = x.dim(2), width = x.dim(3);
  // Anything the whole-tensor path would refuse, it refuses with its own error.
  if (groups <= 0 || channels % groups != 0 || channels / groups != w.dim(1) || m % groups != 0 || (parts.size() > 1 && groups != 1))
    return nullptr;
  auto g = windowGeometry(ctx, {height, width}, {w.dim(2), w.dim(3)}, false);
  if (!g) return nullptr;
  const memory::dims dilations = oneDnnDilations(g->dilations);
  const Dims outDims = {1, m, g->outSize[0], g->outSize[1]};
  // oneDNN 2.6 has Winograd for AVX-512 only.
  if (groups == 1 && cpuIsa() == CpuIsa::Avx512 &&
      convWinogradPays(channels, m, {w.dim(2), w.dim(3)}, g->strides, dilations, outDims))
    return nullptr;
  auto plan = std::make_unique<Plan>();
  plan->outDims = outDims;
  plan->dstChannelsLast = dstChannelsLast;
  for (const ConvPostOp& op : postOps) {
    if (!fused || op.residual < 0) continue;
    const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
    if (r.dtype() != DataType::Float || r.dims() != plan->outDims || r.channelsLast() != dstChannelsLast)
      return nullptr;
  }
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty() && (bias.count() != m || bias.dtype() != DataType::Float)) return nullptr;
  if (!bias.empty()) {
    plan->bias = memory(memory::desc({m}, memory::data_type::f32, Tag::a), cpuEngine());
    std::memcpy(plan->bias.get_data_handle(), bias.raw(), size_t(m) * sizeof(float));
  }

  // The slabs: output rows split evenly, each reading the input rows its windows cover; or, where that reads
  // less (chooseChannelSlabs), output channels in whole vector blocks, each over all rows.
  const int64_t outRows = plan->outDims[2], flops = convFlops(ctx);
  const int threads = ctx.pool().threadCount();
  const int64_t extent = (g->kernel[0] - 1) * g->dilations[0] + 1;
  const int64_t rowSlabs = slabsForWork(flops, outRows, threads);
  const auto rows = rowSlabs >= 2 ? cutRows(outRows, rowSlabs, height, g->strides[0], extent, g->padsBegin[0])
                                  : std::nullopt;
  const int64_t block = cpuIsa() == CpuIsa::Avx512 ? 16 : 8, blocks = (m + block - 1) / block;
  const int64_t channelSlabs = groups == 1 ? slabsForWork(flops, blocks, threads) : 1;
  plan->byChannels =
      chooseChannelSlabs(w.count(), channels * height * width, rows ? rowSlabs : 1, channelSlabs, cachedElements());
  if (!plan->byChannels && !rows) return nullptr;
  auto shapeOf = [&plan](const SlabRows& slab, int64_t slabChannels) {
    size_t shape = 0;
    while (shape < plan->shapes.size() &&
           std::tie(plan->shapes[shape].inRows, plan->shapes[shape].outRows, plan->shapes[shape].padTop,
                    plan->shapes[shape].padBottom, plan->shapes[shape].channels) !=
               std::tie(slab.inRows, slab.outRows, slab.padTop, slab.padBottom, slabChannels))
      ++shape;
    if (shape == plan->shapes.size())
      plan->shapes.push_back({slab.inRows, slab.outRows, slab.padTop, slab.padBottom, slabChannels, {}, {}, {}});
    return shape;
  };
  if (plan->byChannels) {
    const SlabRows all = (*cutRows(outRows, 1, height, g->strides[0], extent, g->padsBegin[0]))[0];
    for (const SlabRange& range : blockRanges(m, block, channelSlabs)) {
      Plan::Slab slab;
      slab.rows = all;
      slab.channelBegin = range.begin;
      slab.channels = range.size;
      slab.shape = shapeOf(all, slab.channels);
      plan->slabs.push_back(std::move(slab));
    }
  } else {
    for (const SlabRows& rowsOfSlab : *rows) {
      Plan::Slab slab;
      slab.rows = rowsOfSlab;
      slab.channels = m;
      slab.shape = shapeOf(rowsOfSlab, m);
      plan->slabs.push_back(std::move(slab));
    }
  }

  try {
    dnnl::stream stream(cpuEngine());
    for (Plan::Shape& shape : plan->shapes) {
      for (size_t p = 0; p < parts.size(); ++p) {
        const TensorValue& in = *parts[p];
        const bool first = p == 0, last = p + 1 == parts.size();
        memory::dims wDims = {shape.channels, in.dim(1), w.dim(2), w.dim(3)};
        if (groups > 1) wDims = {groups, m / groups, w.dim(1), w.dim(2), w.dim(3)};
        const memory::desc src = rowsDesc(in.dim(1), shape.inRows, width, true, height);
        const memory::desc dst = plan->inPlace()
                                     ? rowsDesc(m, shape.outRows, plan->outDims[3], true, outRows)
                                     : rowsDesc(shape.channels, shape.outRows, plan->outDims[3], true, shape.outRows);
        const memory::desc wAny(wDims, memory::data_type::f32, Tag::any);
        const memory::desc biasMd({shape.channels}, memory::data_type::f32, Tag::a);
        const memory::dims padsBegin = {shape.padTop, g->padsBegin[1]}, padsEnd = {shape.padBottom, g->padsEnd[1]};
        const bool biased = first && !bias.empty();
        const auto desc =
            biased ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, src, wAny, biasMd, dst,
                                                     g->strides, dilations, padsBegin, padsEnd)
                   : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::convolution_direct, src, wAny, dst,
                                                     g->strides, dilations, padsBegin, padsEnd);
        dnnl::post_ops post;
        if (!first) post.append_sum(1.0f);
        if (fused && last) appendConvPostOps(post, postOps);
        dnnl::primitive_attr attr;
        attr.set_post_ops(post);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
        const std::string name = pd.impl_info_str();
        if (name.find("ref") != std::string::npos) return nullptr;  // slow on slabs: the whole tensor instead
        if (plan->implementation.empty())
          plan->implementation = (plan->byChannels ? "slabs:channels:" : "slabs:") + name;
        shape.primitives.emplace_back(pd);
        shape.weightLayouts.push_back(pd.weights_desc());
        shape.scratchpads.push_back(pd.scratchpad_desc());
      }
    }
    // The weights of each slab, in its primitive's layout: row slabs share them where the layouts match.
    std::vector<std::vector<memory>> packed(parts.size());  // per part: row slabs' weights so far
    for (Plan::Slab& slab : plan->slabs) {
      const Plan::Shape& shape = plan->shapes[slab.shape];
      int64_t offset = 0;  // input channels of the parts before
      for (size_t p = 0; p < parts.size(); ++p) {
        const TensorValue& in = *parts[p];
        const memory::desc& layout = shape.weightLayouts[p];
        std::optional<memory> shared;
        if (!plan->byChannels)
          for (const memory& other : packed[p])
            if (other.get_desc() == layout) shared = other;
        if (shared) {
          slab.weights.push_back(*shared);
        } else {
          // A part reads its own input channels of its slab's filters (groups are 1 then).
          std::vector<float> slice;
          const float* weights = w.data<float>();
          memory::dims wDims = {groups, m / groups, w.dim(1), w.dim(2), w.dim(3)};
          Tag wTag = Tag::abcde;
          if (groups == 1) {
            const int64_t taps = w.dim(2) * w.dim(3);
            wDims = {slab.channels, in.dim(1), w.dim(2), w.dim(3)};
            wTag = Tag::abcd;
            slice.resize(size_t(slab.channels * in.dim(1) * taps));
            for (int64_t o = 0; o < slab.channels; ++o)
              std::memcpy(slice.data() + o * in.dim(1) * taps,
                          weights + ((slab.channelBegin + o) * w.dim(1) + offset) * taps,
                          size_t(in.dim(1) * taps) * sizeof(float));
            weights = slice.data();
          }
          memory user({wDims, memory::data_type::f32, wTag}, cpuEngine(), const_cast<float*>(weights));
          memory mine(layout, cpuEngine());
          dnnl::reorder(user, mine).execute(stream, user, mine);
          stream.wait();  // before the slice goes
          slab.weights.push_back(mine);
          if (!plan->byChannels) packed[p].push_back(mine);
        }
        offset += in.dim(1);
      }
      if (plan->bias)
        slab.bias = memory(memory::desc({slab.channels}, memory::data_type::f32, Tag::a), cpuEngine(),
                           static_cast<float*>(plan->bias.get_data_handle()) + slab.channelBegin);
    }
  } catch (const dnnl::error& e) {
    return nullptr;  // oneDNN has no primitive for this slab: the whole tensor instead
  }
  for (const TensorValue* part : parts) {
    if (part->channelsLast()) {
      plan->copies.push_back(nullptr);
      plan->toChannelsLast.emplace_back();
      continue;
    }
    plan->copies.push_back(std::make_unique<std::vector<float>>(size_t(part->count())));
    memory plain({part->dims(), memory::data_type::f32, Tag::abcd}, cpuEngine(), nullptr);
    memory copy({part->dims(), memory::data_type::f32, Tag::acdb}, cpuEngine(), nullptr);
    plan->toChannelsLast.emplace_back(plain, copy);
  }
  return plan;
}

}  // namespace onyx::exec
