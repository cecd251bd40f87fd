// oneDNN's float32 Conv and sgemm (MatMul and Gemm: dnnl_matmul.cpp); the oneDNN 2.x API (it changed in
// 3.x) is used only in these files. Primitives are created per input shape and cached; constant weights are
// reordered into oneDNN's preferred (blocked) layout once per primitive. Other types go to the reference
// kernels.
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "exec/cpu/dnnl_common.h"
#include "exec/cpu/gemm.h"
#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"

namespace onyx::exec {

int64_t convFlops(const KernelContext& ctx);
void registerDnnlMatmulCpuKernels(KernelRegistry& r);

namespace {

// The tag of channels-last storage (TensorValue::channelsLast) for a rank.
Tag channelsLastTag(size_t rank) {
  return rank == 3 ? Tag::acb : rank == 4 ? Tag::acdb : rank == 5 ? Tag::acdeb : Tag::undef;
}

Tag layoutTag(const TensorValue& t) {
  return t.channelsLast() ? channelsLastTag(size_t(t.rank())) : plainTag(size_t(t.rank()));
}

// A Conv prepared for one input shape and layout.
struct ConvPlan {
  dnnl::convolution_forward primitive;
  dnnl::convolution_forward::primitive_desc pd;
  memory weights;  // in the primitive's layout
  memory bias;
  Dims outDims;
  Tag srcTag = Tag::undef, dstTag = Tag::undef;  // the layouts of the tensors we read and write
  bool srcReorder = false, dstReorder = false;
  memory srcBlocked, dstBlocked;  // the primitive's layouts when they differ from ours: allocated once
  dnnl::reorder toBlocked, fromBlocked;
  std::map<Tag, dnnl::reorder> residualReorders;  // per residual layout, into the primitive's dst
};

// One element-wise op of a Conv epilogue as a oneDNN post-op: an eltwise algorithm, or the sum of a
// residual operand (KernelContext::epilogueOperand `residual`).
struct PostOp {
  dnnl::algorithm algorithm = dnnl::algorithm::undef;  // undef: the residual sum
  float alpha = 0, beta = 0;
  int residual = -1;
};

// The post-ops of an epilogue, or nullopt when oneDNN cannot express one of its ops.
std::optional<std::vector<PostOp>> postOpsOf(const std::vector<EpilogueOp>& ops) {
  std::vector<PostOp> out;
  bool summed = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    const EpilogueOp& op = ops[i];
    const Node& node = *op.node;
    const std::string& type = node.opType();
    bool chainFirst = !op.inputs.empty() && op.inputs[0] <= kEpilogueChain;
    if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
    if (type == "Relu" && chainFirst) {
      out.push_back({dnnl::algorithm::eltwise_relu, 0.0f, 0.0f});
    } else if (type == "LeakyRelu" && chainFirst) {
      out.push_back({dnnl::algorithm::eltwise_relu, node.attrFloat("alpha", 0.01f), 0.0f});
    } else if (type == "Tanh" && chainFirst) {
      out.push_back({dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f});
    } else if (type == "Clip" && chainFirst) {
      float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
      if (op.opset < 11) {
        lo = node.attrFloat("min", lo);
        hi = node.attrFloat("max", hi);
      } else {
        for (size_t k = 1; k < 3 && k < op.inputs.size(); ++k) {
          const onyx::Value* bound = node.input(k);
          if (!bound || bound->name().empty()) continue;
          auto v = scalarConstant(op.constants[k]);
          if (!v) return std::nullopt;  // a bound computed at run time
          (k == 1 ? lo : hi) = *v;
        }
      }
      if (!(lo <= hi)) return std::nullopt;  // ONNX then gives max everywhere; oneDNN would not
      out.push_back({dnnl::algorithm::eltwise_clip, lo, hi});
    } else if (type == "Sigmoid" && chainFirst) {
      // Sigmoid then Mul of the Sigmoid's input: SiLU (swish); a lone Sigmoid: logistic.
      bool silu = i + 1 < ops.size() && ops[i + 1].node->opType() == "Mul" && ops[i + 1].inputs.size() == 2;
      if (silu) {
        int before = op.inputs[0], sigmoid = kEpilogueChain - int(i + 1);
        const std::vector<int>& m = ops[i + 1].inputs;
        silu = (m[0] == before && m[1] == sigmoid) || (m[0] == sigmoid && m[1] == before);
      }
      if (silu) {
        out.push_back({dnnl::algorithm::eltwise_swish, 1.0f, 0.0f});
        ++i;
      } else {
        out.push_back({dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f});
      }
    } else if (type == "Add" && op.inputs.size() == 2 && !summed) {
      // The residual must be a run-time tensor read before the Conv ran (constants are biases, which the
      // conv-add-fusion pass folds).
      int chain = op.inputs[0] <= kEpilogueChain ? 0 : 1;
      int other = op.inputs[size_t(1 - chain)];
      if (op.inputs[size_t(chain)] != kEpilogueChain - int(i) || other < 0) return std::nullopt;
      out.push_back({dnnl::algorithm::undef, 0.0f, 0.0f, other});
      summed = true;
    } else {
      return std::nullopt;
    }
    if (repeatsAlgorithm(out)) return std::nullopt;
  }
  return out;
}

class DnnlConv final : public Kernel {
 public:
  explicit DnnlConv(const onyx::Tensor* constantWeights) : constantWeights_(constantWeights != nullptr) {}

  bool setEpilogue(const std::vector<EpilogueOp>& ops) override {
    auto post = postOpsOf(ops);
    if (!post) return false;
    postOps_ = std::move(*post);
    plans_.clear();
    return true;
  }

  // Float tensors, and a residual of exactly the Conv's output shape (no broadcasting in a sum post-op).
  bool canFuseEpilogue(const KernelContext& ctx) const override {
    const TensorValue& x = ctx.input(0);
    const TensorValue& w = ctx.input(1);
    if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() < 3 || x.rank() > 5 ||
        w.rank() != x.rank())
      return false;
    for (const PostOp& op : postOps_) {
      if (op.residual < 0) continue;
      const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
      if (r.dtype() != DataType::Float || r.rank() != x.rank() || r.dim(0) != x.dim(0) || r.dim(1) != w.dim(0))
        return false;
      auto g = outputDims(ctx, x, w);
      if (!g || *g != r.dims()) return false;
    }
    return true;
  }

  bool acceptsChannelsLast(size_t input) const override { return input == 0 || input == kEpilogueOperands; }
  bool producesChannelsLast() const override { return true; }

  Expected<void> run(KernelContext& ctx) override {
    const TensorValue& x = ctx.input(0);
    const TensorValue& w = ctx.input(1);
    if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() < 3 || x.rank() > 5 ||
        w.rank() != x.rank())
      return runReferenceKernel(ctx);
    bool fused = ctx.fusingEpilogue() && !postOps_.empty();
    auto key = std::make_tuple(x.dims(), fused, x.channelsLast());
    auto it = plans_.find(key);
    if (it == plans_.end() || !constantWeights_) {
      auto plan = makePlan(ctx, x, w, fused);
      if (!plan) return plan.error();
      it = plans_.insert_or_assign(key, std::move(*plan)).first;
    }
    ConvPlan& plan = it->second;
    auto y = ctx.allocateOutput(0, DataType::Float, plan.outDims);
    if (!y) return y.error();
    (*y)->setChannelsLast(plan.dstTag != plainTag(size_t(x.rank())));
    dnnl::stream stream(cpuEngine());
    memory userSrc({x.dims(), memory::data_type::f32, plan.srcTag}, cpuEngine(), const_cast<void*>(x.raw()));
    memory userDst({plan.outDims, memory::data_type::f32, plan.dstTag}, cpuEngine(), (*y)->raw());
    memory src = userSrc, dst = userDst;
    if (plan.srcReorder) {
      if (!plan.srcBlocked) {
        plan.srcBlocked = memory(plan.pd.src_desc(), cpuEngine());
        plan.toBlocked = dnnl::reorder(userSrc, plan.srcBlocked);
      }
      src = plan.srcBlocked;
      plan.toBlocked.execute(stream, userSrc, src);
    }
    if (plan.dstReorder) {
      if (!plan.dstBlocked) {
        plan.dstBlocked = memory(plan.pd.dst_desc(), cpuEngine());
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
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, plan.weights}, {DNNL_ARG_DST, dst}};
    if (plan.bias) args[DNNL_ARG_BIAS] = plan.bias;
    plan.primitive.execute(stream, args);
    if (plan.dstReorder) plan.fromBlocked.execute(stream, dst, userDst);
    stream.wait();
    return {};
  }

 private:
  Expected<Dims> outputDims(const KernelContext& ctx, const TensorValue& x, const TensorValue& w) const {
    std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
    std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    auto g = windowGeometry(ctx, spatial, kernel, false);
    if (!g) return g.error();
    Dims out = {x.dim(0), w.dim(0)};
    out.insert(out.end(), g->outSize.begin(), g->outSize.end());
    return out;
  }

  Expected<ConvPlan> makePlan(KernelContext& ctx, const TensorValue& x, const TensorValue& w, bool fused) {
    int64_t groups = ctx.attrInt("group", 1);
    int64_t c = x.dim(1), m = w.dim(0);
    if (groups <= 0 || c != w.dim(1) * groups || m % groups != 0)
      return ctx.error("channels of " + x.describe() + " do not match weights " + w.describe() +
                           " with group " + std::to_string(groups),
                       1);
    std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
    std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    auto g = windowGeometry(ctx, spatial, kernel, false);
    if (!g) return g.error();
    ConvPlan plan;
    plan.outDims = {x.dim(0), m};
    for (int64_t o : g->outSize) plan.outDims.push_back(o);
    memory::dims dil;
    for (int64_t d : g->dilations) dil.push_back(d - 1);
    Tag tag = plainTag(size_t(x.rank()));
    memory::desc srcAny(x.dims(), memory::data_type::f32, Tag::any);
    memory::desc dstAny(plan.outDims, memory::data_type::f32, Tag::any);
    memory::dims wDims = w.dims();
    Tag wTag = tag;
    if (groups > 1) {
      wDims = {groups, m / groups};
      wDims.insert(wDims.end(), w.dims().begin() + 1, w.dims().end());
      wTag = plainTag(size_t(x.rank()) + 1);
    }
    memory::desc wAny(wDims, memory::data_type::f32, Tag::any);
    const TensorValue& bias = ctx.input(2);
    memory::desc biasMd({m}, memory::data_type::f32, Tag::a);
    try {
      auto desc = bias.empty() ? dnnl::convolution_forward::desc(
                                     dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                     srcAny, wAny, dstAny, g->strides, dil, g->padsBegin, g->padsEnd)
                               : dnnl::convolution_forward::desc(
                                     dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                     srcAny, wAny, biasMd, dstAny, g->strides, dil, g->padsBegin, g->padsEnd);
      dnnl::primitive_attr attr;
      if (fused) {
        dnnl::post_ops post;
        for (const PostOp& op : postOps_) {
          if (op.residual >= 0)
            post.append_sum(1.0f);
          else
            post.append_eltwise(1.0f, op.algorithm, op.alpha, op.beta);
        }
        attr.set_post_ops(post);
      }
      plan.pd = dnnl::convolution_forward::primitive_desc(desc, attr, cpuEngine());
      plan.primitive = dnnl::convolution_forward(plan.pd);
      dnnl::stream stream(cpuEngine());
      memory userW({wDims, memory::data_type::f32, wTag}, cpuEngine(), const_cast<void*>(w.raw()));
      plan.weights = memory(plan.pd.weights_desc(), cpuEngine());
      dnnl::reorder(userW, plan.weights).execute(stream, userW, plan.weights);
      if (!bias.empty()) {
        if (bias.count() != m || bias.dtype() != DataType::Float)
          return ctx.error(
              "bias " + bias.describe() + " does not match " + std::to_string(m) + " output channels", 2);
        plan.bias = memory(biasMd, cpuEngine());
        std::memcpy(plan.bias.get_data_handle(), bias.raw(), size_t(m) * sizeof(float));
      }
      stream.wait();
      plan.srcTag = layoutTag(x);
      plan.srcReorder = plan.pd.src_desc() != memory::desc(x.dims(), memory::data_type::f32, plan.srcTag);
      // Channels-last output when the readers take it and it is what the primitive writes anyway.
      Tag last = channelsLastTag(size_t(x.rank()));
      bool writesLast = plan.pd.dst_desc() == memory::desc(plan.outDims, memory::data_type::f32, last);
      plan.dstTag = ctx.outputMayBeChannelsLast() && writesLast ? last : tag;
      plan.dstReorder = plan.pd.dst_desc() != memory::desc(plan.outDims, memory::data_type::f32, plan.dstTag);
    } catch (const dnnl::error& e) {
      return ctx.error(std::string("oneDNN could not create the convolution: ") + e.what());
    }
    return plan;
  }

  bool constantWeights_;
  std::vector<PostOp> postOps_;
  std::map<std::tuple<Dims, bool, bool>, ConvPlan> plans_;  // per input shape, epilogue or not, layout
};

Expected<std::unique_ptr<Kernel>> makeConv(const PrepareContext& p) {
  return std::unique_ptr<Kernel>(
      std::make_unique<DnnlConv>(p.constantInputs.size() > 1 ? p.constantInputs[1] : nullptr));
}

}  // namespace

void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void sgemmSerial(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // oneDNN sizes its OpenMP teams by the calling thread's max-threads setting.
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  omp_set_num_threads(saved);
}

void registerDnnlCpuKernels(KernelRegistry& r) {
  KernelDef conv = kernelFactory("Conv", makeConv, 1);
  conv.variant = "dnnl";
  conv.priority = 20;
  conv.flops = convFlops;
  r.add(conv);
  registerDnnlMatmulCpuKernels(r);
}

}  // namespace onyx::exec
