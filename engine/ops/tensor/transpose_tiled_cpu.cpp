// Transpose by blocks: dims that move together are merged, size-1 dims dropped; when the innermost output
// dim is contiguous in the input, rows are copied whole; otherwise the plane of the output's innermost dim
// and the dim the input stores contiguously is copied in square tiles, so both reads and writes stay in
// cache lines. Attention's (0,2,1,3) and (0,2,3,1) on [1,256,12,64] went from 2.5 GB/s to memory speed.
#include <cstring>

#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

struct Plan {
  Dims dims;                     // output dims after merging
  std::vector<int64_t> strides;  // input stride of each
};

Plan mergedPlan(const Dims& outDims, const std::vector<int64_t>& strides) {
  Plan p;
  for (size_t d = 0; d < outDims.size(); ++d) {
    if (outDims[d] == 1) continue;
    if (!p.dims.empty() && p.strides.back() == strides[d] * outDims[d]) {
      p.dims.back() *= outDims[d];
      p.strides.back() = strides[d];
    } else {
      p.dims.push_back(outDims[d]);
      p.strides.push_back(strides[d]);
    }
  }
  if (p.dims.empty()) {
    p.dims = {1};
    p.strides = {1};
  }
  return p;
}

// Input offset of the outer index `index` over dims [0, count) other than `skip`.
int64_t outerOffset(const Plan& p, size_t count, size_t skip, int64_t index) {
  int64_t off = 0;
  for (size_t d = count; d-- > 0;) {
    if (d == skip) continue;
    off += (index % p.dims[d]) * p.strides[d];
    index /= p.dims[d];
  }
  return off;
}

template <class T>
void transposeTiled(const KernelContext& ctx, const T* src, T* dst, const Plan& p) {
  const size_t rank = p.dims.size();
  const int64_t inner = p.dims.back();
  if (p.strides.back() == 1) {  // whole rows
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < rank; ++d) rows *= p.dims[d];
    ctx.parallelFor(rows, std::max<int64_t>(1, 16384 / inner), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row)
        std::memcpy(dst + row * inner, src + outerOffset(p, rank - 1, rank, row), size_t(inner) * sizeof(T));
    });
    return;
  }
  // The output dim the input stores contiguously.
  size_t across = 0;
  for (size_t d = 0; d + 1 < rank; ++d)
    if (p.strides[d] == 1) across = d;
  const int64_t acrossSize = p.dims[across], innerStride = p.strides.back();
  std::vector<int64_t> outStrides(rank, 1);
  for (size_t d = rank - 1; d-- > 0;) outStrides[d] = outStrides[d + 1] * p.dims[d + 1];
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    if (d != across) outer *= p.dims[d];
  constexpr int64_t kTile = 32;
  const int64_t tilesA = (acrossSize + kTile - 1) / kTile, tilesI = (inner + kTile - 1) / kTile;
  ctx.parallelFor(outer * tilesA * tilesI, 4, [&](int64_t b, int64_t e) {
    for (int64_t job = b; job < e; ++job) {
      int64_t ti = job % tilesI, ta = (job / tilesI) % tilesA, o = job / (tilesI * tilesA);
      // Output offset of the outer index: the same walk over the output's strides.
      int64_t inOff = 0, outOff = 0, rest = o;
      for (size_t d = rank - 1; d-- > 0;) {
        if (d == across) continue;
        int64_t i = rest % p.dims[d];
        rest /= p.dims[d];
        inOff += i * p.strides[d];
        outOff += i * outStrides[d];
      }
      int64_t a0 = ta * kTile, a1 = std::min(acrossSize, a0 + kTile);
      int64_t i0 = ti * kTile, i1 = std::min(inner, i0 + kTile);
      for (int64_t a = a0; a < a1; ++a) {
        T* out = dst + outOff + a * outStrides[across];
        const T* in = src + inOff + a;
        for (int64_t i = i0; i < i1; ++i) out[i] = in[i * innerStride];
      }
    }
  });
}

Expected<void> transposeTiledKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.dtype() == DataType::String) return runReferenceKernel(ctx);  // copies by value
  auto perm = transposePerm(ctx, in);
  if (!perm) return perm.error();
  Dims outDims;
  std::vector<int64_t> strides;  // input stride per output dim
  auto inStrides = rowMajorStrides(in.dims());
  for (int64_t p : *perm) {
    outDims.push_back(in.dim(p));
    strides.push_back(inStrides[size_t(p)]);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  if (in.count() == 0) return {};
  Plan plan = mergedPlan(outDims, strides);
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string>) {
      return;  // handled above
    } else {
      transposeTiled(ctx, in.data<T>(), (*y)->template data<T>(), plan);
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerTransposeTiledCpuKernels(KernelRegistry& r) {
  KernelDef def = kernel("Transpose", transposeTiledKernel, 1);
  def.variant = "tiled";
  def.priority = 10;
  r.add(std::move(def));
}

}  // namespace onyx::exec
