// TensorScatter (KV-cache update): copies past_cache and writes `update` into it along `axis`, starting per
// batch entry at write_indices[b] (0 when absent); circular mode wraps around the cache length.
#include <algorithm>
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> tensorScatterKernel(KernelContext& ctx) {
  auto p = ctx.requireTensor(0);
  if (!p) return p.error();
  auto u = ctx.requireTensor(1);
  if (!u) return u.error();
  const TensorValue& past = **p;
  const TensorValue& update = **u;
  if (past.dtype() != update.dtype()) return ctx.error("update must have past_cache's type", 1);
  int64_t rank = past.rank();
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", -2), rank);
  if (!axisOpt || *axisOpt == 0)
    return ctx.error("axis must name a non-batch dimension of " + past.describe());
  int64_t axis = *axisOpt;
  if (update.rank() != rank) return ctx.error("update must have past_cache's rank", 1);
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && update.dim(d) != past.dim(d))
      return ctx.error("update " + update.describe() + " must match past_cache " + past.describe() +
                           " except along axis " + std::to_string(axis),
                       1);
  std::string mode = ctx.attrString("mode", "linear");
  if (mode != "linear" && mode != "circular") return ctx.error("mode must be linear or circular");
  bool circular = mode == "circular";
  int64_t batch = past.dim(0), cacheLength = past.dim(axis), updateLength = update.dim(axis);
  std::vector<int64_t> starts(static_cast<size_t>(batch), 0);
  if (ctx.hasInput(2)) {
    auto indices = ctx.intsInput(2);
    if (!indices || int64_t(indices->size()) != batch)
      return ctx.error("write_indices must have one entry per batch entry", 2);
    starts = *indices;
  }
  // A circular write wraps modulo the cache length: an empty cache has no slot (fuzz audit: % 0).
  if (circular && cacheLength == 0 && updateLength > 0)
    return ctx.error("circular mode needs a cache of at least one entry along axis " + std::to_string(axis) +
                         ", got " + past.describe(),
                     0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t s = starts[size_t(b)];
    if (s < 0 || s >= std::max<int64_t>(cacheLength, 1) || (!circular && s + updateLength > cacheLength))
      return ctx.error("write index " + std::to_string(s) + " with " + std::to_string(updateLength) +
                           " new entries does not fit a cache of " + std::to_string(cacheLength),
                       2);
  }
  auto y = ctx.allocateOutput(0, past.dtype(), past.dims());
  if (!y) return y.error();
  int64_t inner = 1, middle = 1;  // middle: dims between batch and axis
  for (int64_t d = axis + 1; d < rank; ++d) inner *= past.dim(d);
  for (int64_t d = 1; d < axis; ++d) middle *= past.dim(d);
  bool ok = dispatchBySize(past.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = past.template data<T>();
    const T* upd = update.template data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t i = 0; i < past.count(); ++i) dst[i] = src[i];
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t m = 0; m < middle; ++m)
        for (int64_t k = 0; k < updateLength; ++k) {
          int64_t at = starts[size_t(b)] + k;
          if (circular) at %= cacheLength;
          const T* from = upd + ((b * middle + m) * updateLength + k) * inner;
          T* to = dst + ((b * middle + m) * cacheLength + at) * inner;
          for (int64_t e = 0; e < inner; ++e) to[e] = from[e];
        }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerTensorScatterCpuKernels(KernelRegistry& r) {
  r.add(kernel("TensorScatter", tensorScatterKernel, 24));
}

}  // namespace onyx::exec
