#include "ops/nn/conv_pixel_gemv.h"

#include <algorithm>
#include <cstring>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/window_geometry.h"

namespace onyx::exec {

namespace {

bool allOnes(const Dims& dims, size_t from) {
  return std::all_of(dims.begin() + std::ptrdiff_t(from), dims.end(), [](int64_t d) { return d == 1; });
}

}  // namespace

bool ConvPixelGemv::applies(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                            std::span<const ConvEpilogueStage> stages) {
  if (x.dtype() != DataType::Float || w.dtype() != DataType::Float || x.rank() < 3 || w.rank() != x.rank())
    return false;
  if (x.dim(0) != 1 || !allOnes(x.dims(), 2) || !allOnes(w.dims(), 2) || w.dim(1) != x.dim(1)) return false;
  if (ctx.attrInt("group", 1) != 1 || !ctx.inputIsConstant(1)) return false;
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty() && (bias.dtype() != DataType::Float || bias.count() != w.dim(0))) return false;
  for (const ConvEpilogueStage& stage : stages)
    if (stage.kind == ConvEpilogueKind::AddResidual) return false;
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  auto g = windowGeometry(ctx, spatial, kernel, false);
  if (!g) return false;  // the oneDNN path reports it
  for (size_t d = 0; d < spatial.size(); ++d)
    if (g->padsBegin[d] != 0 || g->padsEnd[d] != 0 || g->outSize[d] != 1) return false;
  return true;
}

Expected<void> ConvPixelGemv::run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                  std::span<const ConvEpilogueStage> stages) {
  const int64_t k = x.dim(1), n = w.dim(0);
  gemv_.pack(w.data<float>(), k, n, k, 1);  // W is [n, k]: output o's filter is row o
  Dims outDims(x.dims().size(), 1);
  outDims[1] = n;
  auto y = ctx.allocateOutput(0, DataType::Float, outDims);
  if (!y) return y.error();
  float* out = (*y)->data<float>();
  gemv_.run(ctx, x.data<float>(), out);
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty())
    for (int64_t o = 0; o < n; ++o) out[o] += bias.data<float>()[o];
  for (const ConvEpilogueStage& stage : stages) applyConvEpilogueStage(stage, out, n);
  return {};
}

}  // namespace onyx::exec
