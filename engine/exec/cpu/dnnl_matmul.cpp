// MatMul and Gemm through oneDNN's matmul primitive: batch broadcast, constant B packed once, and an
// epilogue of bias, scale, residual and activation nodes computed as post-ops.
#include <cstring>
#include <map>
#include <optional>

#include "exec/cpu/dnnl_common.h"
#include "exec/kernel_util.h"

namespace onyx::exec {

int64_t matmulFlops(const KernelContext& ctx);

namespace {

// MatMul (and Gemm without transposes of the activations) through oneDNN's matmul, with batch broadcast.
struct MatmulPlan {
  dnnl::matmul primitive;
  dnnl::matmul::primitive_desc pd;
  memory weights;
  bool weightsPacked = false;
  Dims outDims;
  memory::desc srcMd, dstMd, userWeightsMd;
};

class DnnlMatmul final : public Kernel {
 public:
  DnnlMatmul(bool constantB, bool gemm) : constantB_(constantB), gemm_(gemm) {}

  Expected<void> run(KernelContext& ctx) override {
    const TensorValue& a0 = ctx.input(0);
    const TensorValue& b0 = ctx.input(1);
    if (a0.dtype() != DataType::Float || b0.dtype() != DataType::Float || a0.rank() == 0 || b0.rank() == 0 ||
        a0.count() == 0 || b0.count() == 0 || a0.rank() > 6 || b0.rank() > 6)
      return fallback(ctx);
    bool ta = gemm_ && ctx.attrInt("transA", 0) != 0, tb = gemm_ && ctx.attrInt("transB", 0) != 0;
    if (gemm_ && (a0.rank() != 2 || b0.rank() != 2)) return fallback(ctx);
    TensorValue a = a0.rank() == 1 ? a0.reshaped({1, a0.dim(0)}) : a0;
    TensorValue b = b0.rank() == 1 ? b0.reshaped({b0.dim(0), 1}) : b0;
    int64_t m = ta ? a.dim(a.rank() - 1) : a.dim(a.rank() - 2),
            k = ta ? a.dim(a.rank() - 2) : a.dim(a.rank() - 1);
    int64_t k2 = tb ? b.dim(b.rank() - 1) : b.dim(b.rank() - 2),
            n = tb ? b.dim(b.rank() - 2) : b.dim(b.rank() - 1);
    if (k != k2) return ctx.error("cannot multiply " + a0.describe() + " by " + b0.describe(), 1);
    Dims batchA(a.dims().begin(), a.dims().end() - 2), batchB(b.dims().begin(), b.dims().end() - 2);
    auto batch = broadcastShapes({&batchA, &batchB});
    if (!batch)
      return ctx.error("batch dims of " + a0.describe() + " and " + b0.describe() + " do not broadcast", 1);
    Dims outDims = *batch;
    if (a0.rank() != 1) outDims.push_back(m);
    if (b0.rank() != 1) outDims.push_back(n);
    // A constant 2-D B with batched A: fold A's batch into M (one big GEMM).
    int64_t rows = m;
    Dims aDims, bDims, yDims;
    if (!ta && b.rank() == 2) {
      rows = a.count() / k;
      aDims = {rows, k};
      bDims = tb ? Dims{n, k} : Dims{k, n};
      yDims = {rows, n};
    } else {
      size_t rank = batch->size() + 2;
      auto pad = [&](Dims d) {
        while (d.size() < rank) d.insert(d.begin(), 1);
        return d;
      };
      aDims = pad(a.dims());
      bDims = pad(b.dims());
      yDims = *batch;
      yDims.push_back(m);
      yDims.push_back(n);
    }
    auto y = ctx.allocateOutput(0, DataType::Float, outDims);
    if (!y) return y.error();
    Dims key = aDims;
    key.insert(key.end(), bDims.begin(), bDims.end());
    auto it = plans_.find(key);
    try {
      if (it == plans_.end()) {
        MatmulPlan plan;
        auto transposedMd = [](const Dims& dims, bool transposed) {
          memory::dims strides(dims.size());
          int64_t s = 1;
          for (size_t i = dims.size(); i-- > 0;) {
            strides[i] = s;
            s *= dims[i];
          }
          if (transposed) {  // memory holds the last two dims swapped
            size_t r = dims.size();
            strides[r - 1] = dims[r - 2];
            strides[r - 2] = 1;
          }
          return memory::desc(dims, memory::data_type::f32, strides);
        };
        Dims logicalA = aDims, logicalB = bDims;
        if (ta) std::swap(logicalA[logicalA.size() - 1], logicalA[logicalA.size() - 2]);
        if (tb) std::swap(logicalB[logicalB.size() - 1], logicalB[logicalB.size() - 2]);
        plan.srcMd = ta ? transposedMd(logicalA, true)
                        : memory::desc(aDims, memory::data_type::f32, plainTag(aDims.size()));
        plan.userWeightsMd = tb ? transposedMd(logicalB, true)
                                : memory::desc(bDims, memory::data_type::f32, plainTag(bDims.size()));
        plan.dstMd = memory::desc(yDims, memory::data_type::f32, plainTag(yDims.size()));
        bool pack = constantB_ && logicalB.size() == 2;
        memory::desc wMd =
            pack ? memory::desc(logicalB, memory::data_type::f32, Tag::any) : plan.userWeightsMd;
        dnnl::primitive_attr attr;
        if (gemm_) {
          float alpha = ctx.attrFloat("alpha", 1.0f);
          if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
        }
        dnnl::matmul::desc desc(plan.srcMd, wMd, plan.dstMd);
        plan.pd = dnnl::matmul::primitive_desc(desc, attr, cpuEngine());
        plan.primitive = dnnl::matmul(plan.pd);
        if (pack) {
          dnnl::stream stream(cpuEngine());
          memory user(plan.userWeightsMd, cpuEngine(), const_cast<void*>(b.raw()));
          plan.weights = memory(plan.pd.weights_desc(), cpuEngine());
          dnnl::reorder(user, plan.weights).execute(stream, user, plan.weights);
          stream.wait();
          plan.weightsPacked = true;
        }
        it = plans_.emplace(key, std::move(plan)).first;
      }
      MatmulPlan& plan = it->second;
      dnnl::stream stream(cpuEngine());
      memory src(plan.srcMd, cpuEngine(), const_cast<void*>(a.raw()));
      memory dst(plan.dstMd, cpuEngine(), (*y)->raw());
      memory weights = plan.weightsPacked
                           ? plan.weights
                           : memory(plan.userWeightsMd, cpuEngine(), const_cast<void*>(b.raw()));
      plan.primitive.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
      stream.wait();
    } catch (const dnnl::error& e) {
      return ctx.error(std::string("oneDNN matmul failed: ") + e.what());
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
  Expected<void> fallback(KernelContext& ctx) {
    for (const KernelDef* def : cpuKernels().variants("", gemm_ ? "Gemm" : "MatMul"))
      if (def->variant == "reference") return def->function(ctx);
    return ctx.error("has no reference kernel");
  }
  bool constantB_;
  bool gemm_;
  std::map<Dims, MatmulPlan> plans_;
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

void registerDnnlMatmulCpuKernels(KernelRegistry& r) {
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
