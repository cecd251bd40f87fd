// MatMul and Gemm through oneDNN's matmul primitive, the fast variants of the reference kernels in
// matmul_cpu.cpp: batch broadcast, constant B packed once, and an epilogue of bias, scale, residual and
// activation nodes computed as post-ops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "exec/cpu/cpu_isa.h"
#include "exec/cpu/dnnl_common.h"
#include "exec/thread_pool.h"
#include "exec/kernel_util.h"
#include "ops/math/matmul_dims.h"
#include "ops/math/matmul_dnnl.h"
#include "ops/math/matmul_epilogue_chain.h"
#include "ops/math/matmul_epilogue_cpu.h"
#include "ops/contrib/nbits_gemm.h"
#include "ops/math/packed_gemv.h"

namespace onyx::exec {

int64_t matmulFlops(const KernelContext& ctx);  // matmul_cpu.cpp

namespace {

// The epilogue chain (matmul_epilogue_chain.h) as oneDNN post-ops; nullopt where oneDNN 2.6 would
// misread it (a repeated eltwise algorithm, see repeatsAlgorithm).
std::optional<std::vector<MatmulPostOp>> matmulPostOpsOf(const std::vector<EpilogueOp>& ops) {
  using Alg = dnnl::algorithm;
  using Kind = MatmulEpilogueKind;
  auto chain = matmulEpilogueChain(ops);
  if (!chain) return std::nullopt;
  std::vector<MatmulPostOp> out;
  for (const MatmulEpilogueStage& stage : *chain) {
    switch (stage.kind) {
      case Kind::Bias: {
        MatmulPostOp bias{MatmulPostOp::Kind::Bias};
        bias.bias = TensorValue::fromConstant(*stage.bias);
        out.push_back(std::move(bias));
        continue;
      }
      case Kind::Residual: {
        MatmulPostOp residual{MatmulPostOp::Kind::Residual};
        residual.residual = stage.residual;
        out.push_back(std::move(residual));
        continue;
      }
      case Kind::Linear: out.push_back({MatmulPostOp::Kind::Eltwise, Alg::eltwise_linear, stage.a, stage.b}); break;
      case Kind::Relu: out.push_back({MatmulPostOp::Kind::Eltwise, Alg::eltwise_relu, 0, 0}); break;
      case Kind::LeakyRelu: out.push_back({MatmulPostOp::Kind::Eltwise, Alg::eltwise_relu, stage.a, 0}); break;
      case Kind::Tanh: out.push_back({MatmulPostOp::Kind::Eltwise, Alg::eltwise_tanh, 0, 0}); break;
      case Kind::Sigmoid: out.push_back({MatmulPostOp::Kind::Eltwise, Alg::eltwise_logistic, 0, 0}); break;
      case Kind::GeluErf: out.push_back({MatmulPostOp::Kind::Eltwise, Alg::eltwise_gelu_erf, 0, 0}); break;
    }
    if (repeatsAlgorithm(out)) return std::nullopt;
  }
  return out;
}

// MatMul (and Gemm without transposes of the activations) through oneDNN's matmul, with batch broadcast.
struct MatmulPlan {
  dnnl::matmul primitive;
  dnnl::matmul::primitive_desc pd;
  memory weights;
  bool weightsPacked = false;
  memory::desc srcMd, dstMd, userWeightsMd;
  std::vector<memory::desc> binaryMds;  // per Bias post-op and residual read as a binary operand, in order
  // A residual of the output's dims added by a sum post-op, which adds to what dst holds (the residual is
  // copied there first): only where oneDNN has no fast kernel for it as a binary operand.
  bool summed = false;
  std::vector<Dims> residuals;  // per fused Residual post-op: its dims in Y (residualInY)
};

// Input i for the oneDNN path, nullopt when it cannot take it. A folded Transpose is read with permuted
// strides when `permuted` allows (oneDNN's brgemm matmul takes BERT's head splits that way), else made.
Expected<std::optional<MatmulOperand>> operandOf(const KernelContext& ctx, size_t i, bool permuted) {
  const TensorValue& stored = ctx.storedInput(i);
  auto perm = ctx.inputPermutation(i);
  if (!perm) return perm.error();
  MatmulOperand op;
  op.dims = ctx.inputDims(i);
  if (stored.dtype() != DataType::Float || op.dims.empty() || op.dims.size() > 6 || elementCount(op.dims) == 0)
    return std::optional<MatmulOperand>();
  if (perm->empty() || !permuted || op.dims.size() < 2) {
    op.storage = &ctx.input(i);
    return std::optional<MatmulOperand>(op);
  }
  op.storage = &stored;
  const std::vector<int64_t> storedStrides = rowMajorStrides(stored.dims());
  for (int64_t p : *perm) op.strides.push_back(storedStrides[size_t(p)]);
  return std::optional<MatmulOperand>(op);
}

// A memory desc of `dims` (an operand's, padded with leading ones to `rank`) over its strides.
memory::desc operandMd(const MatmulOperand& op, const Dims& dims) {
  if (op.strides.empty()) return memory::desc(dims, memory::data_type::f32, plainTag(dims.size()));
  memory::dims strides(dims.size() - op.strides.size(), elementCount(op.storage->dims()));
  strides.insert(strides.end(), op.strides.begin(), op.strides.end());
  return memory::desc(dims, memory::data_type::f32, strides);
}

// Where a residual of `dims` lies in Y's dims: Y's own dims (a sum post-op), a broadcast binary operand, or
// nullopt when it does not broadcast to the output or the folded batch cannot express it.
std::optional<Dims> residualInY(const Dims& dims, const MatmulShapes& s) {
  const Dims& out = s.outDims;
  if (dims.size() > out.size()) return std::nullopt;
  Dims padded(out.size() - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  for (size_t i = 0; i < out.size(); ++i)
    if (padded[i] != 1 && padded[i] != out[i]) return std::nullopt;
  if (s.yDims.size() == out.size()) return padded;
  // Y is (rows, N): the leading dims must be all ones or all of the output's.
  bool ones = true, full = true;
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    ones = ones && padded[i] == 1;
    full = full && padded[i] == out[i];
  }
  if (!ones && !full) return std::nullopt;
  return Dims{ones ? 1 : s.yDims[0], padded.back()};
}

class DnnlMatmul final : public Kernel {
 public:
  DnnlMatmul(bool constantB, bool gemm) : constantB_(constantB), gemm_(gemm), panelsChoice_(panelsChoice()) {}

  bool setEpilogue(const std::vector<EpilogueOp>& ops) override {
    if (gemm_) return false;  // Gemm adds C after the product
    auto post = matmulPostOpsOf(ops);
    if (!post) return false;
    postOps_ = std::move(*post);
    cpuEpilogue_ = CpuMatmulEpilogue::of(ops);
    plans_.clear();
    slabs_.clear();
    return true;
  }

  // The product has an N dim, the bias runs along it, a residual broadcasts to the output, and oneDNN has a
  // fast implementation of the fused primitive (its reference one would be slower than the unfused nodes).
  bool canFuseEpilogue(const KernelContext& ctx) const override {
    auto shapes = shapesOf(ctx);
    if (!shapes || !*shapes) return false;
    const Dims* out = &(*shapes)->outDims;
    if ((*shapes)->b.dims.size() < 2 || out->empty()) return false;
    for (const MatmulPostOp& op : postOps_) {
      if (op.kind == MatmulPostOp::Kind::Bias) {
        const Dims& d = op.bias.dims();
        if (d.empty() || d.size() > out->size() || d.back() != out->back()) return false;
        for (size_t i = 0; i + 1 < d.size(); ++i)
          if (d[i] != 1) return false;
      } else if (op.kind == MatmulPostOp::Kind::Residual) {
        const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
        if (r.dtype() != DataType::Float || r.channelsLast()) return false;
      }
    }
    // Our panels compute it (no oneDNN plan is made, nor its copy of B packed, for a product they take).
    if (takesPanels(ctx, **shapes, true)) return true;
    try {
      const MatmulPlan* plan = planFor(ctx, **shapes, true);
      return plan && std::string_view(plan->pd.impl_info_str()).substr(0, 3) != "ref";
    } catch (const dnnl::error&) {
      return false;
    }
  }

  std::string_view implementation() const override { return implementation_; }

  Expected<void> run(KernelContext& ctx) override {
    auto found = shapesOf(ctx);
    if (!found) return found.error();
    if (!*found) {
      implementation_ = "reference";  // the profile says so
      return runReferenceKernel(ctx);
    }
    const MatmulShapes* shapes = &**found;
    auto y = ctx.allocateOutput(0, DataType::Float, shapes->outDims);
    if (!y) return y.error();
    const bool fused = ctx.fusingEpilogue() && !postOps_.empty();
    if (!fused && takesGemv(ctx, *shapes)) {
      runGemv(ctx, *shapes, **y);
    } else if (takesPanels(ctx, *shapes, fused)) {
      runPanels(ctx, *shapes, **y, fused);
    } else if (auto ran = runDnnl(ctx, *shapes, **y, fused); !ran) {
      return ran.error();
    }
    if (gemm_ && ctx.hasInput(2)) {  // Y += beta * C (broadcast)
      const TensorValue& c = ctx.input(2);
      if (c.dtype() != DataType::Float) return ctx.unsupportedType(2);
      Dims od = (*y)->dims();
      auto out = broadcastShapes({&c.dims(), &od});
      if (!out || *out != od)
        return ctx.error("C " + c.describe() + " does not broadcast to " + (*y)->describe(), 2);
      auto cs = broadcastStrides(c.dims(), od);
      float beta = ctx.attrFloat("beta", 1.0f);
      float* py = (*y)->template data<float>();
      const float* pc = c.data<float>();
      for (int64_t i = 0; i < od[0]; ++i) {
        const float* crow = pc + i * cs[0];
        float* yrow = py + i * od[1];
        if (cs[1] == 1)
          for (int64_t j = 0; j < od[1]; ++j) yrow[j] += beta * crow[j];
        else
          for (int64_t j = 0; j < od[1]; ++j) yrow[j] += beta * crow[0];
      }
    }
    return {};
  }

 private:
  // The product through oneDNN's matmul primitive (made once per shape), with the fused epilogue.
  Expected<void> runDnnl(KernelContext& ctx, const MatmulShapes& s, TensorValue& y, bool fused) {
    try {
      const MatmulPlan* plan = planFor(ctx, s, fused);
      if (!plan) return ctx.error("a residual operand does not broadcast to the product " + y.describe());
      if (ctx.pool().sharesCores() && plan->weightsPacked && !plan->summed) {
        const float alpha = gemm_ ? ctx.attrFloat("alpha", 1.0f) : 1.0f;
        auto slabbed =
            slabs_.run(ctx, s, plan->srcMd, s.tb, postOps_, plan->residuals, fused, alpha, y, implementation_);
        if (!slabbed) return slabbed.error();
        if (*slabbed) return {};
      }
      implementation_ = plan->pd.impl_info_str();
      dnnl::stream stream(cpuEngine());
      memory src(plan->srcMd, cpuEngine(), const_cast<void*>(s.a.storage->raw()));
      memory dst(plan->dstMd, cpuEngine(), y.raw());
      memory weights = plan->weightsPacked ? plan->weights
                                           : memory(plan->userWeightsMd, cpuEngine(),
                                                    const_cast<void*>(s.b.storage->raw()));
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
      size_t binaries = 0;
      for (size_t i = 0; fused && i < postOps_.size(); ++i) {
        const MatmulPostOp& op = postOps_[i];
        const int arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(i)) | DNNL_ARG_SRC_1;
        if (op.kind == MatmulPostOp::Kind::Bias) {
          args[arg] = memory(plan->binaryMds[binaries++], cpuEngine(), const_cast<void*>(op.bias.raw()));
        } else if (op.kind == MatmulPostOp::Kind::Residual) {
          const TensorValue& r = ctx.epilogueOperand(size_t(op.residual));
          if (plan->summed)  // the sum post-op adds to what dst holds
            std::memcpy(y.raw(), r.raw(), r.byteSize());
          else
            args[arg] = memory(plan->binaryMds[binaries++], cpuEngine(), const_cast<void*>(r.raw()));
        }
      }
      plan->primitive.execute(stream, args);
      stream.wait();
    } catch (const dnnl::error& e) {
      return ctx.error(std::string("oneDNN matmul failed: ") + e.what());
    }
    return {};
  }

  // One row of A times a constant 2-D B read as it lies (a classifier's Linear at batch 1): PackedGemv.
  bool takesGemv(const KernelContext& ctx, const MatmulShapes& s) const {
    static const bool off = std::getenv("ONYX_NO_GEMV") != nullptr;
    return !off && (constantB_ || ctx.inputIsConstant(1)) && !s.ta && s.aDims.size() == 2 && s.aDims[0] == 1 &&
           s.bDims.size() == 2 && s.a.strides.empty() && s.b.strides.empty();
  }

  void runGemv(const KernelContext& ctx, const MatmulShapes& s, TensorValue& y) {
    const int64_t k = s.aDims[1], n = s.n;
    // B is [k, n], or [n, k] when Gemm's transB says so: output o's weights are then its row o.
    gemv_.pack(s.b.storage->data<float>(), k, n, s.tb ? k : 1, s.tb ? 1 : n);
    float* out = y.data<float>();
    gemv_.run(ctx, s.a.storage->data<float>(), out);
    if (const float alpha = gemm_ ? ctx.attrFloat("alpha", 1.0f) : 1.0f; alpha != 1.0f)
      for (int64_t o = 0; o < n; ++o) out[o] *= alpha;
    static const std::string kGemv = "gemv:" + std::string(cpuIsaName(cpuIsa()));  // fixed per process
    implementation_ = kGemv;
  }

  // Whether the product runs on our register-tiled panels (contrib::packedPanelsGemm, B packed once): a
  // constant 2-D B, A's batch folded into rows and read as it lies, an epilogue CpuMatmulEpilogue computes,
  // where oneDNN's matmul has only its gemm:jit (oneDNN 2.6's brgemm needs AVX-512). There gemm:jit ran
  // bert_small's 128 x 256 by 256 x 1024 products at 75-87 GFLOP/s on a 2-core Zen 4 and its others at 121-184,
  // where brgemm ran them at 156-197 with AVX-512 and the panels at 158-179 with AVX2. (With SSE only,
  // oneDNN's gemm was the faster: bert_small 1.09x its time on the panels.)
  // ONYX_MATMUL=dnnl turns it off, ONYX_MATMUL=panels takes it with AVX-512 too (PanelsChoice).
  bool takesPanels(const KernelContext& ctx, const MatmulShapes& s, bool fused) const {
    if (panelsChoice_ == PanelsChoice::Never ||
        (panelsChoice_ == PanelsChoice::OnAvx2 &&
         (cpuIsa() != CpuIsa::Avx2 || dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core)))
      return false;
    if (!(constantB_ || ctx.inputIsConstant(1)) || s.ta || s.aDims.size() != 2 || s.bDims.size() != 2 ||
        !s.a.strides.empty() || !s.b.strides.empty())
      return false;
    return !fused || (cpuEpilogue_ && cpuEpilogue_->fits(ctx, s.outDims));
  }

  void runPanels(KernelContext& ctx, const MatmulShapes& s, TensorValue& y, bool fused) {
    const int64_t rows = s.aDims[0], k = s.aDims[1], n = s.n;
    if (panelsFrom_ != s.b.storage->raw()) {  // constant: packed once, Gemm's alpha with it
      const float alpha = gemm_ ? ctx.attrFloat("alpha", 1.0f) : 1.0f;
      panels_.resize(size_t(contrib::packedPanelFloats(k, n)));
      contrib::packPanels(s.b.storage->data<float>(), s.tb ? k : n, k, n, s.tb, panels_.data(), alpha);
      panelsFrom_ = s.b.storage->raw();
    }
    float* out = y.data<float>();
    contrib::NBitsTileDone epilogue;
    if (fused)
      epilogue = [&](int64_t row0, int64_t count, int64_t col0, int64_t cols) {
        cpuEpilogue_->apply(ctx, out, n, n, row0, count, col0, cols);
      };
    contrib::packedPanelsGemm(ctx.pool(), s.a.storage->data<float>(), rows, k, panels_.data(), k, n, nullptr, out, n,
                              contrib::nativeNBitsIsa(), epilogue);
    static const std::string kPanels = "panels:" + std::string(cpuIsaName(cpuIsa()));  // fixed per process
    implementation_ = kPanels;
  }

  // The operands and product dims; nullopt when the oneDNN path cannot take the inputs (the reference
  // kernel runs), an error when they cannot be multiplied.
  Expected<std::optional<MatmulShapes>> shapesOf(const KernelContext& ctx) const {
    MatmulShapes s;
    const Dims bDims = ctx.inputDims(1);
    // A read permuted unless its batch folds into M (a 2-D B, or a 1-D one, padded to [K, 1]), which needs it
    // contiguous (a permuted A with a 1-D B had more strides than dims: a vector of SIZE_MAX strides).
    auto a = operandOf(ctx, 0, gemm_ || bDims.size() > 2);
    if (!a) return a.error();
    auto b = operandOf(ctx, 1, true);
    if (!b) return b.error();
    if (!*a || !*b) return std::optional<MatmulShapes>();
    s.a = **a;
    s.b = **b;
    if (gemm_ && (s.a.dims.size() != 2 || s.b.dims.size() != 2)) return std::optional<MatmulShapes>();
    s.ta = gemm_ && ctx.attrInt("transA", 0) != 0;
    s.tb = gemm_ && ctx.attrInt("transB", 0) != 0;
    MatmulDims dims;
    const MatmulMismatch mismatch = matmulDims(s.a.dims, s.b.dims, s.ta, s.tb, dims);
    const std::string described = describeTensor(DataType::Float, s.a.dims) + " by " +
                                  describeTensor(DataType::Float, s.b.dims);
    if (mismatch == MatmulMismatch::InnerDims) return ctx.error("cannot multiply " + described, 1);
    if (mismatch == MatmulMismatch::BatchDims)
      return ctx.error("batch dims of " + described + " do not broadcast", 1);
    const Dims& a2 = dims.a;
    const Dims& b2 = dims.b;
    const size_t rb = b2.size();
    const int64_t m = dims.m, k = dims.k;
    s.n = dims.n;
    s.outDims = dims.out;
    if (!s.ta && rb == 2) {
      const int64_t rows = elementCount(s.a.dims) / k;
      s.aDims = {rows, k};
      s.bDims = b2;
      s.yDims = {rows, s.n};
    } else {
      const size_t rank = dims.batch.size() + 2;
      auto pad = [&](Dims d) {
        while (d.size() < rank) d.insert(d.begin(), 1);
        return d;
      };
      s.aDims = pad(a2);
      s.bDims = pad(b2);
      s.yDims = dims.batch;
      s.yDims.push_back(m);
      s.yDims.push_back(s.n);
    }
    return std::optional<MatmulShapes>(std::move(s));
  }

  // The primitive for these operand dims and residual dims, made once (B packed when constant); null when a
  // fused residual does not broadcast to the output. Throws dnnl::error.
  const MatmulPlan* planFor(const KernelContext& ctx, const MatmulShapes& s, bool fused) const {
    Dims key = s.aDims;
    key.insert(key.end(), s.bDims.begin(), s.bDims.end());
    for (const MatmulOperand* op : {&s.a, &s.b}) {  // permuted reads
      key.push_back(-4);
      key.insert(key.end(), op->strides.begin(), op->strides.end());
    }
    std::vector<Dims> residuals;  // per Residual post-op: its dims in Y, Y's own for a sum post-op
    for (const MatmulPostOp& op : postOps_) {
      if (!fused || op.kind != MatmulPostOp::Kind::Residual) continue;
      auto inY = residualInY(ctx.epilogueOperand(size_t(op.residual)).dims(), s);
      if (!inY) return nullptr;
      residuals.push_back(*inY);
      key.push_back(-3);
      key.insert(key.end(), inY->begin(), inY->end());
    }
    key.push_back(fused ? -1 : -2);
    key.push_back(ctx.pool().dnnlThreads());  // oneDNN fixes a primitive's team size when it creates it
    auto it = plans_.find(key);
    if (it != plans_.end()) return &it->second;
    MatmulPlan plan;
    plan.residuals = residuals;
    auto transposedMd = [](const Dims& dims, bool transposed) {
      memory::dims strides(dims.size());
      int64_t stride = 1;
      for (size_t i = dims.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= dims[i];
      }
      if (transposed) {  // memory holds the last two dims swapped
        size_t r = dims.size();
        strides[r - 1] = dims[r - 2];
        strides[r - 2] = 1;
      }
      return memory::desc(dims, memory::data_type::f32, strides);
    };
    Dims logicalA = s.aDims, logicalB = s.bDims;
    if (s.ta) std::swap(logicalA[logicalA.size() - 1], logicalA[logicalA.size() - 2]);
    if (s.tb) std::swap(logicalB[logicalB.size() - 1], logicalB[logicalB.size() - 2]);
    plan.srcMd = s.ta ? transposedMd(logicalA, true) : operandMd(s.a, s.aDims);
    plan.userWeightsMd = s.tb ? transposedMd(logicalB, true) : operandMd(s.b, s.bDims);
    plan.dstMd = memory::desc(s.yDims, memory::data_type::f32, plainTag(s.yDims.size()));
    const bool pack = (constantB_ || ctx.inputIsConstant(1)) && logicalB.size() == 2;
    memory::desc wMd = pack ? memory::desc(logicalB, memory::data_type::f32, Tag::any) : plan.userWeightsMd;
    // A residual of the output's dims is read as a binary operand (no copy into dst first); where that has
    // only oneDNN's reference kernel, a sum post-op adds it instead.
    for (bool sumFullResiduals : {false, true}) {
      dnnl::primitive_attr attr;
      if (gemm_) {
        float alpha = ctx.attrFloat("alpha", 1.0f);
        if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
      }
      plan.binaryMds.clear();
      plan.summed = false;
      if (fused) {
        dnnl::post_ops post;
        size_t residual = 0;
        for (const MatmulPostOp& op : postOps_) {
          if (op.kind == MatmulPostOp::Kind::Eltwise) {
            post.append_eltwise(1.0f, op.algorithm, op.alpha, op.beta);
          } else if (op.kind == MatmulPostOp::Kind::Bias) {
            memory::dims biasDims(s.yDims.size(), 1);
            biasDims.back() = s.n;
            plan.binaryMds.push_back(memory::desc(biasDims, memory::data_type::f32, plainTag(biasDims.size())));
            post.append_binary(dnnl::algorithm::binary_add, plan.binaryMds.back());
          } else if (const Dims& r = residuals[residual++]; sumFullResiduals && r == s.yDims) {
            post.append_sum(1.0f);
            plan.summed = true;
          } else {
            plan.binaryMds.push_back(memory::desc(r, memory::data_type::f32, plainTag(r.size())));
            post.append_binary(dnnl::algorithm::binary_add, plan.binaryMds.back());
          }
        }
        attr.set_post_ops(post);
      }
      dnnl::matmul::desc desc(plan.srcMd, wMd, plan.dstMd);
      plan.pd = dnnl::matmul::primitive_desc(desc, attr, cpuEngine());
      const bool fullResidual = std::find(residuals.begin(), residuals.end(), s.yDims) != residuals.end();
      if (!fullResidual || std::string_view(plan.pd.impl_info_str()).substr(0, 3) != "ref") break;
    }
    plan.primitive = dnnl::matmul(plan.pd);
    if (pack) {
      // B packed the same way by another plan (another thread count or shape of A) is shared, not copied.
      for (const auto& [otherKey, other] : plans_)
        if (other.weightsPacked && other.userWeightsMd == plan.userWeightsMd &&
            other.pd.weights_desc() == plan.pd.weights_desc())
          plan.weights = other.weights;
      if (!plan.weights) {
        dnnl::stream stream(cpuEngine());
        memory user(plan.userWeightsMd, cpuEngine(), const_cast<void*>(s.b.storage->raw()));
        plan.weights = memory(plan.pd.weights_desc(), cpuEngine());
        dnnl::reorder(user, plan.weights).execute(stream, user, plan.weights);
        stream.wait();
      }
      plan.weightsPacked = true;
    }
    return &plans_.emplace(key, std::move(plan)).first->second;
  }

  // Where runPanels serves what fits it: ONYX_MATMUL=panels (Always), =dnnl (Never), else on AVX2, where oneDNN
  // has no brgemm matmul. Read when the kernel is made, so that a test can set it for the executors it makes.
  enum class PanelsChoice { OnAvx2, Always, Never };
  static PanelsChoice panelsChoice() {
    const char* choice = std::getenv("ONYX_MATMUL");
    const std::string_view value = choice ? choice : "";
    return value == "panels" ? PanelsChoice::Always : value == "dnnl" ? PanelsChoice::Never : PanelsChoice::OnAvx2;
  }

  bool constantB_;

  bool gemm_;
  PanelsChoice panelsChoice_;
  std::string implementation_;  // the last run's plan's, as oneDNN names it ("brg:avx2")
  std::vector<MatmulPostOp> postOps_;
  // Per operand dims, residual dims and whether the epilogue is fused; made on first use, also from the
  // const canFuseEpilogue (the plan it checks is the one the run then uses).
  mutable std::map<Dims, MatmulPlan> plans_;
  PackedGemv gemv_;
  MatmulSlabs slabs_;  // shared-cores runs
  std::optional<CpuMatmulEpilogue> cpuEpilogue_;  // the epilogue for runPanels, where one computes it
  std::vector<float> panels_;                     // runPanels' B, packed
  const void* panelsFrom_ = nullptr;              // the B it holds (constant for the kernel's life)
};

Expected<std::unique_ptr<Kernel>> makeMatmul(const PrepareContext& p) {
  return std::unique_ptr<Kernel>(
      std::make_unique<DnnlMatmul>(p.constantInputs.size() > 1 && p.constantInputs[1], false));
}
Expected<std::unique_ptr<Kernel>> makeGemm(const PrepareContext& p) {
  return std::unique_ptr<Kernel>(
      std::make_unique<DnnlMatmul>(p.constantInputs.size() > 1 && p.constantInputs[1], true));
}

}  // namespace

void registerMatmulDnnlCpuKernels(KernelRegistry& r) {
  KernelDef matmul = kernelFactory("MatMul", makeMatmul, 1);
  matmul.variant = "dnnl";
  matmul.priority = 20;
  matmul.flops = matmulFlops;
  r.add(matmul);
  KernelDef gemm = kernelFactory("Gemm", makeGemm, 1);
  gemm.variant = "dnnl";
  gemm.priority = 20;
  gemm.flops = matmulFlops;
  r.add(gemm);
}

}  // namespace onyx::exec
