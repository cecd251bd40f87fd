// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim channels of every head by the angle
// whose cos/sin the caches hold for the token's position; pairs are (i, i + half) or, interleaved, (2i,
// 2i+1).
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> runRotaryEmbedding(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& x = ctx.input(0);
  const TensorValue& cosCache = ctx.input(1);
  const TensorValue& sinCache = ctx.input(2);
  if (x.rank() != 3 && x.rank() != 4) return ctx.error("input must be 3D or 4D, got " + x.describe(), 0);
  if (cosCache.dtype() != x.dtype() || sinCache.dtype() != x.dtype() || cosCache.dims() != sinCache.dims())
    return ctx.error("cos_cache and sin_cache must match each other and the input type", 1);
  const bool packed = x.rank() == 3;
  const int64_t batch = x.dim(0);
  const int64_t seq = packed ? x.dim(1) : x.dim(2);
  int64_t heads = packed ? ctx.attrInt("num_heads", 0) : x.dim(1);
  if (heads <= 0 || (packed && x.dim(2) % heads != 0))
    return ctx.error("a 3D input needs a num_heads attribute dividing its hidden size " + x.describe(), 0);
  const int64_t headSize = packed ? x.dim(2) / heads : x.dim(3);
  int64_t rotaryDim = ctx.attrInt("rotary_embedding_dim", 0);
  if (rotaryDim == 0) rotaryDim = headSize;
  if (rotaryDim < 0 || rotaryDim > headSize || rotaryDim % 2 != 0)
    return ctx.error("rotary_embedding_dim " + std::to_string(rotaryDim) +
                     " must be even and at most the head size " + std::to_string(headSize));
  const int64_t half = rotaryDim / 2;
  const bool interleaved = ctx.attrInt("interleaved", 0) != 0;

  // Row of the caches for each (batch, position).
  std::vector<int64_t> cacheRow(size_t(batch * seq));
  if (ctx.hasInput(3)) {
    const std::vector<int64_t> positions = ctx.input(3).toInts();
    if (int64_t(positions.size()) != batch * seq || cosCache.rank() != 2 || cosCache.dim(1) != half)
      return ctx.error("with position_ids [batch, seq] the caches must be [max_position, " +
                           std::to_string(half) + "], got " + cosCache.describe(),
                       3);
    for (size_t i = 0; i < positions.size(); ++i) {
      if (positions[i] < 0 || positions[i] >= cosCache.dim(0))
        return ctx.error(
            "position id " + std::to_string(positions[i]) + " is outside the caches " + cosCache.describe(),
            3);
      cacheRow[i] = positions[i];
    }
  } else {
    if (cosCache.rank() != 3 || cosCache.dim(0) != batch || cosCache.dim(1) != seq || cosCache.dim(2) != half)
      return ctx.error("without position_ids the caches must be [batch, seq, " + std::to_string(half) +
                           "], got " + cosCache.describe(),
                       1);
    for (int64_t i = 0; i < batch * seq; ++i) cacheRow[size_t(i)] = i;
  }

  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    const T* in = x.data<T>();
    const T* cosData = cosCache.data<T>();
    const T* sinData = sinCache.data<T>();
    T* out = (*y)->template data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t s = 0; s < seq; ++s) {
          const int64_t offset =
              packed ? ((b * seq + s) * heads + h) * headSize : ((b * heads + h) * seq + s) * headSize;
          const T* row = in + offset;
          T* outRow = out + offset;
          const int64_t cache = cacheRow[size_t(b * seq + s)] * half;
          for (int64_t i = 0; i < half; ++i) {
            const int64_t first = interleaved ? 2 * i : i, second = interleaved ? 2 * i + 1 : i + half;
            const C c = C(cosData[cache + i]), sn = C(sinData[cache + i]);
            const C x1 = C(row[first]), x2 = C(row[second]);
            outRow[first] = fromCompute<T>(c * x1 - sn * x2);
            outRow[second] = fromCompute<T>(sn * x1 + c * x2);
          }
          for (int64_t d = rotaryDim; d < headSize; ++d) outRow[d] = row[d];
        }
      }
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerRotaryEmbeddingCpuKernels(KernelRegistry& registry) {
  registry.add(kernel("RotaryEmbedding", runRotaryEmbedding, 23));
}

}  // namespace onyx::exec
