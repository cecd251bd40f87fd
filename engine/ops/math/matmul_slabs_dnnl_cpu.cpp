// MatMul and Gemm as column slabs in shared-cores runs (matmul_dnnl.h, MatmulSlabs).
#include <algorithm>
#include <unordered_map>

#include "exec/cpu/slabs.h"
#include "exec/thread_pool.h"
#include "ops/math/matmul_dnnl.h"

namespace onyx::exec {

namespace {

// A slab's operand of a binary post-op: `md` at `offset` elements into the tensor, or, with `rows`, that many
// rows of the slab's columns copied dense first (oneDNN's fast matmuls read no strided operand).
struct Binary {
  memory::desc md;
  int64_t offset = 0;
  int64_t rows = 0;
};

}  // namespace

struct MatmulSlabs::Plan {
  struct Slab {
    int64_t begin = 0;  // its first column
    dnnl::matmul primitive;
    int64_t columns = 0;
    memory weights;                // its columns of B, packed
    memory::desc dst, scratchpad;  // dst: its columns of Y, dense in a buffer, then copied into place
    std::vector<Binary> binaries;  // per Bias or Residual post-op, in order
  };
  std::vector<Slab> slabs;
  std::string implementation;
};

MatmulSlabs::MatmulSlabs() = default;
MatmulSlabs::~MatmulSlabs() = default;

void MatmulSlabs::clear() {
  plans_.clear();
}

Expected<bool> MatmulSlabs::run(KernelContext& ctx, const MatmulShapes& s, const memory::desc& srcMd,
                                bool transposedB, const std::vector<MatmulPostOp>& postOps,
                                const std::vector<Dims>& residuals, bool fused, float alpha, TensorValue& y,
                                std::string& implementation) {
  if (!ctx.pool().sharesCores() || s.ta || s.yDims.size() != 2 || s.bDims.size() != 2 || !s.b.strides.empty())
    return false;
  const int64_t rows = s.yDims[0], k = transposedB ? s.bDims[1] : s.bDims[0], n = s.n;
  Dims key = s.aDims;
  key.insert(key.end(), s.bDims.begin(), s.bDims.end());
  for (const Dims& r : residuals) {
    key.push_back(-3);
    key.insert(key.end(), r.begin(), r.end());
  }
  key.push_back(fused ? -1 : -2);
  key.push_back(transposedB ? -1 : -2);
  auto it = plans_.find(key);
  if (it == plans_.end()) {
    std::unique_ptr<Plan> plan;
    const int64_t blocks = (n + kColumnsPerBlock - 1) / kColumnsPerBlock;
    const int64_t count = slabsForWork(2 * rows * k * n, blocks, ctx.pool().threadCount());
    try {
      if (count >= 2) {
        plan = std::make_unique<Plan>();
        dnnl::stream stream(cpuEngine());
        for (const SlabRange& range : blockRanges(n, kColumnsPerBlock, count)) {
          if (!plan) break;
          Plan::Slab slab;
          slab.begin = range.begin;
          const int64_t columns = range.size;
          slab.columns = columns;
          // B as [k, n] row-major, or Gemm's transB [n, k]: its columns are then rows.
          const memory::desc userWeights({k, columns}, memory::data_type::f32,
                                         transposedB ? memory::dims{1, k} : memory::dims{n, 1});
          slab.dst = memory::desc({rows, columns}, memory::data_type::f32, Tag::ab);
          dnnl::primitive_attr attr;
          if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
          attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
          dnnl::post_ops post;
          size_t residual = 0;
          for (const MatmulPostOp& op : postOps) {
            if (!fused) break;
            if (op.kind == MatmulPostOp::Kind::Eltwise) {
              post.append_eltwise(1.0f, op.algorithm, op.alpha, op.beta);
              continue;
            }
            Binary binary;
            if (op.kind == MatmulPostOp::Kind::Bias) {  // along N, leading ones: its columns lie in one piece
              binary = {memory::desc({1, columns}, memory::data_type::f32, Tag::ab), slab.begin};
            } else if (const Dims& r = residuals[residual++]; r.back() == 1) {  // broadcast along N
              binary = {memory::desc({r[0], 1}, memory::data_type::f32, Tag::ab), 0};
            } else if (r[0] == 1) {  // broadcast along the rows: its columns lie in one piece
              binary = {memory::desc({1, columns}, memory::data_type::f32, Tag::ab), slab.begin};
            } else if (std::none_of(slab.binaries.begin(), slab.binaries.end(),
                                    [](const Binary& other) { return other.rows > 0; })) {
              binary = {memory::desc({r[0], columns}, memory::data_type::f32, Tag::ab), slab.begin, r[0]};
            } else {  // a second copied one would take the first's buffer
              plan = nullptr;
              break;
            }
            post.append_binary(dnnl::algorithm::binary_add, binary.md);
            slab.binaries.push_back(binary);
          }
          if (!plan) break;
          attr.set_post_ops(post);
          const memory::desc wAny({k, columns}, memory::data_type::f32, Tag::any);
          dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(srcMd, wAny, slab.dst), attr, cpuEngine());
          if (std::string_view(pd.impl_info_str()).substr(0, 3) == "ref") {
            plan = nullptr;  // slower than the whole product on one thread
            break;
          }
          if (plan->implementation.empty()) plan->implementation = std::string("slabs:") + pd.impl_info_str();
          slab.primitive = dnnl::matmul(pd);
          slab.scratchpad = pd.scratchpad_desc();
          const float* b = s.b.storage->data<float>() + (transposedB ? slab.begin * k : slab.begin);
          memory user(userWeights, cpuEngine(), const_cast<float*>(b));
          slab.weights = memory(pd.weights_desc(), cpuEngine());
          dnnl::reorder(user, slab.weights).execute(stream, user, slab.weights);
          stream.wait();
          plan->slabs.push_back(std::move(slab));
        }
      }
    } catch (const dnnl::error&) {
      plan = nullptr;  // oneDNN has no primitive for these slabs: the whole product instead
    }
    it = plans_.emplace(key, std::move(plan)).first;
  }
  if (!it->second) return false;
  Plan& plan = *it->second;
  const void* a = s.a.storage->raw();
  float* out = y.data<float>();
  std::vector<const float*> operands;  // per Bias or Residual post-op
  for (const MatmulPostOp& op : postOps) {
    if (!fused || op.kind == MatmulPostOp::Kind::Eltwise) continue;
    operands.push_back(op.kind == MatmulPostOp::Kind::Bias ? op.bias.data<float>()
                                                           : ctx.epilogueOperand(size_t(op.residual)).data<float>());
  }
  try {
    ctx.pool().runTasks(int64_t(plan.slabs.size()), [&](int64_t i) {
      const Plan::Slab& slab = plan.slabs[size_t(i)];
      thread_local dnnl::stream stream(cpuEngine());
      float* target = slabThreadBuffer(kSlabOutput, slab.dst.get_size());
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(srcMd, cpuEngine(), const_cast<void*>(a))},
                                           {DNNL_ARG_WEIGHTS, slab.weights},
                                           {DNNL_ARG_DST, memory(slab.dst, cpuEngine(), target)}};
      size_t binary = 0;
      for (size_t p = 0; fused && p < postOps.size(); ++p) {
        if (postOps[p].kind == MatmulPostOp::Kind::Eltwise) continue;
        const Binary& b = slab.binaries[binary];
        const float* operand = operands[binary] + b.offset;
        if (b.rows > 0) {  // one such operand at most (the plan's)
          float* dense = slabThreadBuffer(kSlabOperand, b.md.get_size());
          copyRows(operand, n, dense, slab.columns, b.rows, slab.columns);
          operand = dense;
        }
        args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(p)) | DNNL_ARG_SRC_1] =
            memory(b.md, cpuEngine(), const_cast<float*>(operand));
        ++binary;
      }
      if (slab.scratchpad.get_size() > 0)
        args[DNNL_ARG_SCRATCHPAD] =
            memory(slab.scratchpad, cpuEngine(), slabThreadBuffer(kSlabScratchpad, slab.scratchpad.get_size()));
      slab.primitive.execute(stream, args);
      stream.wait();
      copyRows(target, slab.columns, out + slab.begin, n, rows, slab.columns);
    });
  } catch (const dnnl::error& e) {
    return ctx.error(std::string("oneDNN could not run a slab of the matmul: ") + e.what());
  }
  implementation = plan.implementation;
  return true;
}

}  // namespace onyx::exec
