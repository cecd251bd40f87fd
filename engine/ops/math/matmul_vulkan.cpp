// Vulkan kernels for MatMul and Gemm: one tiled GEMM shader (matmul_vulkan.comp) reading A and B through
// strides, so transposes and broadcast batches cost no copies. Conv's GEMM path uses it too (gemmOnDevice).
#include <algorithm>
#include <bit>

#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "ops/math/matmul_dims.h"
#include "ops/math/matmul_epilogue_chain.h"
#include "ops/math/matmul_vulkan.h"

namespace onyx::exec::vulkan {

namespace {

// Whether a matrix read along its unit-stride direction starts every vec4 on a 16-byte boundary.
bool alignedForVec4(int64_t unitStride, int64_t otherStride, int64_t base, const Dims& batchStrides) {
  if (unitStride != 1 || otherStride % 4 != 0 || base % 4 != 0) return false;
  return std::all_of(batchStrides.begin(), batchStrides.end(), [](int64_t s) { return s % 4 == 0; });
}

}  // namespace

// The tile is 16*TM x 64: the largest that still gives the device enough groups to fill a discrete GPU (a
// hundred-odd multiprocessors), smaller tiles for thin problems.
int gemmRowsPerThread(int64_t m, int64_t n, int64_t batches) {
  auto groups = [&](int64_t tm) { return (m + 16 * tm - 1) / (16 * tm) * ((n + 63) / 64) * batches; };
  if (m >= 128 && groups(8) >= 256) return 8;
  if (m > 32 && groups(4) >= 96) return 4;
  return 2;
}

int gemmSplitK(VulkanRun& run, int64_t m, int64_t n, int64_t k, int64_t batches, int rowsPerThread, bool float16) {
  int64_t rows = 16 * rowsPerThread, groups = (m + rows - 1) / rows * ((n + 63) / 64) * batches;
  if (float16 || groups >= 128 || k < 512) return 1;
  int64_t parts = std::min<int64_t>({(256 + groups - 1) / groups, k / 256, 16});
  if (parts < 2 || batches * parts > int64_t(run.context().maxGroupsPerDim())) return 1;
  return int(parts);
}

Expected<void> addSplitKParts(VulkanRun& run, const TensorValue& partial, int parts, int mode, Push push,
                              const std::vector<int32_t>& epilogueCodes, const TensorValue* bias,
                              const TensorValue* residual, const TensorValue& y) {
  push.at(0, y.count()).at(1, parts);
  std::vector<int32_t> spec = {mode};
  spec.insert(spec.end(), epilogueCodes.begin(), epilogueCodes.end());
  return run.dispatch("gemm_splitk_vulkan", spec,
                      {&partial, bias ? bias : &partial, residual ? residual : &partial, &y}, push, y.count(), false);
}

Expected<void> gemmOnDevice(VulkanRun& run, const GemmCall& g, const TensorValue& a, const TensorValue& b,
                            const TensorValue& y) {
  if (g.m == 0 || g.n == 0) return {};
  Push push;
  push.add(g.m).add(g.n).add(g.k);
  for (int d = 0; d < 3; ++d) push.at(3 + d, g.batchDims[size_t(d)]).at(6 + d, g.aBatch[size_t(d)]).at(9 + d, g.bBatch[size_t(d)]);
  push.at(12, g.aM).at(13, g.aK).at(14, g.bK).at(15, g.bN).at(16, g.bias ? 1 : 0).at(17, g.biasM).at(18, g.biasN);
  push.n = 19;
  push.addFloat(g.alpha).addFloat(g.beta).add(g.aBase).add(g.bBase).add(g.yBase).add(g.biasBatch);
  for (int i = 0; i < 6; ++i) push.at(25 + i, std::bit_cast<int32_t>(g.epilogueParams[size_t(i)]));
  int64_t batches = g.batchDims[0] * g.batchDims[1] * g.batchDims[2];
  const TensorValue* bias = g.bias ? g.bias : &y;
  bool float16 = y.dtype() == DataType::Float16;
  // Load along the direction that is contiguous in memory, so neighbouring threads read neighbouring words.
  bool aAlongM = g.aK != 1 && g.aM == 1, bAlongK = g.bN != 1 && g.bK == 1;
  bool vecA = !float16 && (aAlongM ? alignedForVec4(g.aM, g.aK, g.aBase, g.aBatch)
                                   : alignedForVec4(g.aK, g.aM, g.aBase, g.aBatch));
  bool vecB = !float16 && (bAlongK ? alignedForVec4(g.bK, g.bN, g.bBase, g.bBatch)
                                   : alignedForVec4(g.bN, g.bK, g.bBase, g.bBatch));
  int tm = gemmRowsPerThread(g.m, g.n, batches);
  int parts = g.yBase == 0 && y.count() == batches * g.m * g.n ? gemmSplitK(run, g.m, g.n, g.k, batches, tm, float16) : 1;
  const TensorValue* out = &y;
  Expected<TensorValue> partial = TensorValue();
  if (parts > 1) {
    partial = run.scratch(DataType::Float, {parts * y.count()});
    if (!partial) return partial.error();
    out = &*partial;
  }
  std::vector<const TensorValue*> tensors = {&a, &b, bias, out};
  if (!float16) tensors.insert(tensors.end(), {&a, &b, g.residual ? g.residual : &a});  // vec4 views, residual
  const auto& codes = g.epilogueCodes;
  auto done = run.dispatchGroups("matmul_vulkan", {tm, aAlongM, bAlongK, vecA, vecB, codes[0], codes[1], codes[2], 0, parts},
                                 tensors, push,
                                 uint32_t((g.n + 63) / 64), uint32_t((g.m + 16 * tm - 1) / (16 * tm)),
                                 uint32_t(batches * parts), float16);
  if (!done || parts == 1) return done;
  Push finish;
  finish.at(2, g.m).at(3, g.n).at(4, g.bias ? 1 : 0).at(5, g.biasM).at(6, g.biasN).at(7, g.biasBatch);
  finish.at(8, std::bit_cast<int32_t>(g.alpha)).at(9, std::bit_cast<int32_t>(g.beta));
  for (int i = 0; i < 6; ++i) finish.at(19 + i, std::bit_cast<int32_t>(g.epilogueParams[size_t(i)]));
  return addSplitKParts(run, *partial, parts, 0, finish, {codes.begin(), codes.end()}, g.bias, g.residual, y);
}

namespace {

// conv_epilogue.glsl's stage codes.
enum EpilogueCode { kRelu = 1, kLeakyRelu = 2, kSigmoid = 4, kTanh = 6, kAddResidual = 7, kLinear = 8, kGeluErf = 9 };
constexpr size_t kMaxEpilogueStages = 3;

int32_t epilogueCode(MatmulEpilogueKind kind) {
  switch (kind) {
    case MatmulEpilogueKind::Relu: return kRelu;
    case MatmulEpilogueKind::LeakyRelu: return kLeakyRelu;
    case MatmulEpilogueKind::Sigmoid: return kSigmoid;
    case MatmulEpilogueKind::Tanh: return kTanh;
    case MatmulEpilogueKind::Residual: return kAddResidual;
    case MatmulEpilogueKind::Linear: return kLinear;
    case MatmulEpilogueKind::GeluErf: return kGeluErf;
    case MatmulEpilogueKind::Bias: break;
  }
  return 0;
}

// A bias Add comes first (it goes through the GEMM's own bias), then at most three shader stages.
bool acceptsMatmulEpilogue(const std::vector<EpilogueOp>& ops) {
  auto stages = matmulEpilogueChain(ops);
  if (!stages || stages->empty()) return false;
  size_t first = (*stages)[0].kind == MatmulEpilogueKind::Bias ? 1 : 0;
  for (size_t i = first; i < stages->size(); ++i)
    if ((*stages)[i].kind == MatmulEpilogueKind::Bias) return false;
  return stages->size() - first <= kMaxEpilogueStages;
}

// Float32 products with a matrix B (a vector B drops the dim a bias runs along); the bias runs along the
// output's last dim; a residual has exactly the output's shape.
bool canFuseMatmulEpilogue(const KernelContext& ctx, const std::vector<EpilogueOp>& ops) {
  auto stages = matmulEpilogueChain(ops);
  const TensorValue& a = ctx.input(0);
  const TensorValue& b = ctx.input(1);
  MatmulDims dims;
  if (!stages || a.dtype() != DataType::Float || b.dtype() != DataType::Float || a.rank() == 0 || b.rank() < 2 ||
      matmulDims(a.dims(), b.dims(), false, false, dims) != MatmulMismatch::None || dims.out.empty())
    return false;
  for (const MatmulEpilogueStage& stage : *stages) {
    if (stage.kind == MatmulEpilogueKind::Bias) {
      const Dims& d = stage.bias->dims();
      if (d.empty() || d.size() > dims.out.size() || d.back() != dims.out.back()) return false;
      if (std::any_of(d.begin(), d.end() - 1, [](int64_t v) { return v != 1; })) return false;
    } else if (stage.kind == MatmulEpilogueKind::Residual) {
      const TensorValue& r = ctx.epilogueOperand(size_t(stage.residual));
      if (r.dtype() != DataType::Float || r.dims() != dims.out || r.channelsLast()) return false;
    }
  }
  return true;
}

// This run's fused epilogue into the GEMM call: the bias through its strides, the stages as codes.
Expected<void> addMatmulEpilogue(VulkanRun& run, GemmCall& g) {
  auto stages = matmulEpilogueChain(run.epilogue());
  if (!stages) return run.error("cannot compute its fused epilogue");
  size_t code = 0;
  for (const MatmulEpilogueStage& stage : *stages) {
    if (stage.kind == MatmulEpilogueKind::Bias) {
      g.bias = run.epilogueConstant(stage.bias);
      if (!g.bias) return run.error("its fused bias has no device copy");
      g.biasM = 0;
      g.biasN = 1;
      g.biasBatch = 0;
      g.beta = 1;
      continue;
    }
    if (code == kMaxEpilogueStages) return run.error("more fused stages than the shader has");
    g.epilogueCodes[code] = epilogueCode(stage.kind);
    g.epilogueParams[2 * code] = stage.a;
    g.epilogueParams[2 * code + 1] = stage.b;
    if (stage.kind == MatmulEpilogueKind::Residual) g.residual = &run.epilogueOperand(size_t(stage.residual));
    ++code;
  }
  return {};
}

Expected<void> runMatMul(VulkanRun& run) {
  const TensorValue& a = run.input(0);
  const TensorValue& b = run.input(1);
  if (a.rank() == 0 || b.rank() == 0) return run.error("MatMul needs inputs of rank >= 1");
  Dims da = a.dims(), db = b.dims();
  bool vecA = da.size() == 1, vecB = db.size() == 1;
  if (vecA) da.insert(da.begin(), 1);
  if (vecB) db.push_back(1);
  int64_t m = da[da.size() - 2], k = da.back(), n = db.back();
  if (db[db.size() - 2] != k) return run.error("inner dims differ: " + a.describe() + " x " + b.describe());
  Dims batchA(da.begin(), da.end() - 2), batchB(db.begin(), db.end() - 2);
  auto batch = broadcastShapes({&batchA, &batchB});
  if (!batch) return run.error("batch dims do not broadcast: " + a.describe() + " x " + b.describe());
  Dims outDims = *batch;
  if (!vecA) outDims.push_back(m);
  if (!vecB) outDims.push_back(n);
  auto y = run.output(0, a.dtype(), outDims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  Dims bd = *batch;
  Dims sa = broadcastStridesTo(batchA, bd), sb = broadcastStridesTo(batchB, bd);
  for (int64_t& s : sa) s *= m * k;
  for (int64_t& s : sb) s *= k * n;
  collapseDims(bd, {&sa, &sb});
  // A batch dim that B broadcasts over, while A's matrices lie back to back along it, is more rows of one
  // product: [197, 1, 768] x [768, 2304] (vit_b_16's attention input projection) is one 197-row GEMM, not
  // 197 one-row products that each read all of B.
  while (!bd.empty() && sb.back() == 0 && sa.back() == m * k) {
    m *= bd.back();
    bd.pop_back();
    sa.pop_back();
    sb.pop_back();
  }
  if (bd.size() > 3) return run.fallback("more than 3 batch dims after merging");
  GemmCall g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.aM = k;
  g.aK = 1;
  g.bK = n;
  g.bN = 1;
  size_t pad = 3 - bd.size();
  for (size_t d = 0; d < bd.size(); ++d) {
    g.batchDims[pad + d] = bd[d];
    g.aBatch[pad + d] = sa[d];
    g.bBatch[pad + d] = sb[d];
  }
  if (elementCount(bd) > int64_t(run.context().maxGroupsPerDim())) return run.fallback("too many batches");
  if (k == 0) {
    g.alpha = 0;  // an empty sum: zeros (the shader loops no times)
  }
  if (!run.epilogue().empty())
    if (auto added = addMatmulEpilogue(run, g); !added) return added;
  return gemmOnDevice(run, g, a, b, *y);
}

Expected<void> runGemm(VulkanRun& run) {
  const TensorValue& a = run.input(0);
  const TensorValue& b = run.input(1);
  if (a.rank() != 2 || b.rank() != 2) return run.error("Gemm needs 2-D A and B");
  bool ta = run.node().attrInt("transA", 0) != 0, tb = run.node().attrInt("transB", 0) != 0;
  int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  int64_t kb = tb ? b.dim(1) : b.dim(0), n = tb ? b.dim(0) : b.dim(1);
  if (k != kb) return run.error("inner dims differ: " + a.describe() + " x " + b.describe());
  auto y = run.output(0, a.dtype(), {m, n});
  if (!y) return y.error();
  GemmCall g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.aM = ta ? 1 : a.dim(1);
  g.aK = ta ? a.dim(1) : 1;
  g.bK = tb ? 1 : b.dim(1);
  g.bN = tb ? b.dim(1) : 1;
  g.alpha = run.node().attrFloat("alpha", 1.0f);
  g.beta = run.node().attrFloat("beta", 1.0f);
  if (run.hasInput(2)) {
    const TensorValue& c = run.input(2);
    Dims out = {m, n};
    if (!broadcastShapes({&c.dims(), &out}) || c.rank() > 2) return run.error("C does not broadcast to [M, N]");
    Dims s = broadcastStridesTo(c.dims(), out);
    g.bias = &c;
    g.biasM = s[0];
    g.biasN = s[1];
  }
  return gemmOnDevice(run, g, a, b, *y);
}

}  // namespace

void registerMatmulVulkanKernels(VulkanKernelRegistry& registry) {
  VulkanKernelDef matmul{"MatMul", 1};
  matmul.function = runMatMul;
  matmul.acceptsEpilogue = acceptsMatmulEpilogue;
  matmul.canFuseEpilogue = canFuseMatmulEpilogue;
  registry.add(std::move(matmul));
  VulkanKernelDef gemm{"Gemm", 7};
  gemm.function = runGemm;
  registry.add(std::move(gemm));
}

}  // namespace onyx::exec::vulkan
