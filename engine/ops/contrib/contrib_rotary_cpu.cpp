// com.microsoft RotaryEmbedding: (input, position_ids, cos_cache, sin_cache), input (B, S, heads * H) or
// (B, heads, S, H). position_ids is (B, S), or one value: the offset of the first token (positions offset +
// s). The first 2 * cos_cache.dim(1) channels of every head rotate; pairs (i, i + half) or interleaved.
#include <cstring>

#include "ops/contrib/contrib_kernels.h"

namespace onyx::exec::contrib {
namespace {

Expected<void> runRotaryEmbedding(KernelContext& ctx) {
  auto inputs = requireTensors<4>(ctx);
  if (!inputs) return inputs.error();
  const auto& [x, positions, cosCache, sinCache] = *inputs;
  if (!isFloatStorage(x.dtype())) return ctx.unsupportedType(0);
  if (x.rank() != 3 && x.rank() != 4) return ctx.error("input must be 3D or 4D, got " + x.describe(), 0);
  if (cosCache.rank() != 2 || cosCache.dims() != sinCache.dims() || !isFloatStorage(cosCache.dtype()))
    return ctx.error("cos_cache and sin_cache must be float (max_position, rotary_dim / 2) of one shape", 2);
  // Both caches are widened by cos_cache's checks; a 1-byte sin_cache was read as 2-byte floats (fuzz: heap over-read).
  if (sinCache.dtype() != cosCache.dtype())
    return ctx.error("sin_cache must have cos_cache's type " + std::string(dataTypeName(cosCache.dtype())) + ", got " + sinCache.describe(), 3);
  const bool bsnh = x.rank() == 3;
  const int64_t batch = x.dim(0), seq = bsnh ? x.dim(1) : x.dim(2), half = cosCache.dim(1);
  int64_t heads = bsnh ? ctx.attrInt("num_heads", 0) : x.dim(1);
  if (bsnh && heads <= 0) heads = half > 0 && x.dim(2) % (2 * half) == 0 ? x.dim(2) / (2 * half) : 0;
  if (heads <= 0 || (bsnh && x.dim(2) % heads)) return ctx.error("num_heads does not divide the hidden size of " + x.describe(), 0);
  const int64_t headSize = bsnh ? x.dim(2) / heads : x.dim(3);
  const int64_t rotaryDim = ctx.attrInt("rotary_embedding_dim", 0) > 0 ? ctx.attrInt("rotary_embedding_dim", 0) : 2 * half;
  if (rotaryDim != 2 * half || rotaryDim > headSize)
    return ctx.error("rotary dim " + std::to_string(rotaryDim) + " must be twice cos_cache's last dim and at most the head size", 2);
  const std::vector<int64_t> pos = positions.toInts();
  const bool offsetOnly = pos.size() == 1 && batch * seq != 1;
  if (!offsetOnly && int64_t(pos.size()) != batch * seq)
    return ctx.error("position_ids " + positions.describe() + " must be (batch, sequence) or one offset", 1);
  const std::vector<float> c = floatsOf(cosCache), s = floatsOf(sinCache);
  const bool interleaved = ctx.attrInt("interleaved", 0) != 0;
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  std::vector<float> v(size_t(x.count()));
  toFloats(x.dtype(), x.raw(), v.data(), x.count());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < seq; ++t) {
      const int64_t p = offsetOnly ? pos[0] + t : pos[size_t(b * seq + t)];
      if (p < 0 || p >= cosCache.dim(0))
        return ctx.error("position " + std::to_string(p) + " is outside the caches' " + std::to_string(cosCache.dim(0)) + " rows", 1);
      for (int64_t h = 0; h < heads; ++h) {
        float* head = v.data() + (bsnh ? (b * seq + t) * heads + h : (b * heads + h) * seq + t) * headSize;
        rotateHead(head, half, c.data() + p * half, s.data() + p * half, interleaved);
      }
    }
  fromFloats(x.dtype(), v.data(), (*y)->raw(), x.count());
  return {};
}

}  // namespace

void registerContribRotaryCpuKernels(KernelRegistry& registry) {
  registry.add(microsoftKernel("RotaryEmbedding", runRotaryEmbedding));
}

}  // namespace onyx::exec::contrib
