// Transpose reference kernel (any rank and type; its fast variant by tiles is transpose_tiled_cpu.cpp), and
// the perm both of them resolve (movement_params.h).
#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

Expected<void> transposeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  auto permOr = transposePerm(ctx, in);
  if (!permOr) return permOr.error();
  const std::vector<int64_t>& perm = *permOr;
  Dims outDims;
  for (int64_t p : perm) outDims.push_back(in.dim(p));
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  std::vector<int64_t> strides;  // input stride per output dim
  for (int64_t p : perm) strides.push_back(inStrides[size_t(p)]);
  int64_t total = in.count();
  if (total == 0) return {};
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t inner = rank ? outDims.back() : 1;
    int64_t innerStride = rank ? strides.back() : 1;
    int64_t rows = total / std::max<int64_t>(inner, 1);
    ctx.parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t row = b; row < e; ++row) {
                        int64_t off = 0, rest = row;
                        for (int64_t d = rank - 2; d >= 0; --d) {
                          off += (rest % outDims[size_t(d)]) * strides[size_t(d)];
                          rest /= outDims[size_t(d)];
                        }
                        T* o = dst + row * inner;
                        for (int64_t i = 0; i < inner; ++i) o[i] = src[off + i * innerStride];
                      }
                    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

Expected<std::vector<int64_t>> transposePerm(const KernelContext& ctx, const TensorValue& in) {
  const std::vector<int64_t> given = ctx.attrInts("perm").value_or(std::vector<int64_t>{});
  if (!given.empty() && int64_t(given.size()) != in.rank())
    return ctx.error("perm has " + std::to_string(given.size()) + " entries for " + in.describe(), 0);
  auto perm = resolvePerm(given, in.rank());
  if (!perm) return ctx.error("perm is not a permutation", 0);
  return *perm;
}

void registerTransposeCpuKernels(KernelRegistry& r) {
  r.add(kernel("Transpose", transposeKernel, 1));
}

}  // namespace onyx::exec
