// LayerNormalization of float32 with a full-size scale (and bias): each row through a vectorised
// mean / variance / affine pass (exec/cpu/fast_math). Broadcast scales and other types go to the reference
// kernel in norm_cpu.cpp, which stays the oracle.
#include "exec/cpu/fast_math.h"
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> layerNormRows(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  auto scales = ctx.requireTensor(1);
  if (!scales) return scales.error();
  const TensorValue& x = **xs;
  const TensorValue& scale = **scales;
  const TensorValue& bias = ctx.input(2);
  auto axis = normalizeAxis(ctx.attrInt("axis", -1), x.rank());
  int64_t rows = 1, cols = 1;
  if (axis) {
    for (int64_t d = 0; d < *axis; ++d) rows *= x.dim(d);
    for (int64_t d = *axis; d < x.rank(); ++d) cols *= x.dim(d);
  }
  bool fits = axis && cols > 0 && x.dtype() == DataType::Float && scale.dtype() == DataType::Float &&
              scale.count() == cols && (bias.empty() || (bias.dtype() == DataType::Float && bias.count() == cols));
  if (!fits) return runReferenceKernel(ctx);
  auto y = ctx.allocateOutput(0, DataType::Float, x.dims());
  if (!y) return y.error();
  Dims statDims = x.dims();
  for (int64_t d = *axis; d < x.rank(); ++d) statDims[size_t(d)] = 1;
  float* meanOut = nullptr;
  float* invOut = nullptr;
  if (ctx.wantsOutput(1)) {
    auto m = ctx.allocateOutput(1, DataType::Float, statDims);
    if (!m) return m.error();
    meanOut = (*m)->data<float>();
  }
  if (ctx.wantsOutput(2)) {
    auto v = ctx.allocateOutput(2, DataType::Float, statDims);
    if (!v) return v.error();
    invOut = (*v)->data<float>();
  }
  const float eps = ctx.attrFloat("epsilon", 1e-5f);
  const float* src = x.data<float>();
  const float* g = scale.data<float>();
  const float* b = bias.empty() ? nullptr : bias.data<float>();
  float* dst = (*y)->data<float>();
  ctx.parallelFor(rows, std::max<int64_t>(1, 4096 / cols), [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      float inv = 0;
      float mean = fastLayerNormRow(src + r * cols, dst + r * cols, cols, g, b, eps, &inv);
      if (meanOut) meanOut[r] = mean;
      if (invOut) invOut[r] = inv;
    }
  });
  return {};
}

}  // namespace

void registerLayerNormFastCpuKernels(KernelRegistry& r) {
  KernelDef def = kernel("LayerNormalization", layerNormRows, 17);
  def.variant = "fast";
  def.isaDispatched = true;
  def.priority = 10;
  r.add(std::move(def));
}

}  // namespace onyx::exec
