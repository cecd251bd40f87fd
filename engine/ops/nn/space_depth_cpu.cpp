// DepthToSpace (DCR and CRD modes) and SpaceToDepth: blocks of channels to spatial tiles and back.
#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

template <bool ToSpace>
Expected<void> spaceDepthKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() != 4) return ctx.error("needs a 4-D input, got " + in.describe(), 0);
  int64_t b = ctx.attrInt("blocksize", 0);
  if (b <= 0) return ctx.error("blocksize must be positive");
  int64_t n = in.dim(0), c = in.dim(1), h = in.dim(2), w = in.dim(3);
  bool crd = ctx.attrString("mode", "DCR") == "CRD";
  // A blocksize of 2^32 squares past int64; the grown dims are checked too (then allocateOutput limits them).
  const auto square = checkedMul(b, b);
  const auto grownA = square ? (ToSpace ? checkedMul(h, b) : checkedMul(c, *square)) : std::nullopt;
  const auto grownB = ToSpace ? checkedMul(w, b) : grownA;
  if (!square || !grownA || !grownB)
    return ctx.error("blocksize " + std::to_string(b) + " is too large for " + in.describe(), 0);
  Dims outDims = ToSpace ? Dims{n, c / *square, *grownA, *grownB} : Dims{n, *grownA, h / b, w / b};
  if ((ToSpace && c % *square) || (!ToSpace && (h % b || w % b)))
    return ctx.error("dims are not divisible by the block size", 0);
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t oc = outDims[1], oh = outDims[2], ow = outDims[3];
    for (int64_t ni = 0; ni < n; ++ni)
      for (int64_t ci = 0; ci < oc; ++ci)
        for (int64_t hi = 0; hi < oh; ++hi)
          for (int64_t wi = 0; wi < ow; ++wi) {
            int64_t srcIndex;
            if constexpr (ToSpace) {
              int64_t bh = hi % b, bw = wi % b;
              int64_t sc = crd ? ci * b * b + bh * b + bw : (bh * b + bw) * oc + ci;
              srcIndex = ((ni * c + sc) * h + hi / b) * w + wi / b;
            } else {
              int64_t blocks = b * b, cIn = ci % c, block = ci / c;
              int64_t bh = block / b, bw = block % b;
              srcIndex = ((ni * c + cIn) * h + hi * b + bh) * w + wi * b + bw;
              (void)blocks;
            }
            dst[((ni * oc + ci) * oh + hi) * ow + wi] = src[srcIndex];
          }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerSpaceDepthCpuKernels(KernelRegistry& r) {
  r.add(kernel("DepthToSpace", spaceDepthKernel<true>, 1));
  r.add(kernel("SpaceToDepth", spaceDepthKernel<false>, 1));
}

}  // namespace onyx::exec
