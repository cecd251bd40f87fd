// Col2Im: sums sliding-window columns [N, C * prod(block), L] back into an image [N, C, *image_shape].
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

Expected<void> col2ImKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto image = ctx.intsInput(1);
  if (!image) return ctx.error("image_shape must be a 1-D integer tensor", 1);
  auto block = ctx.intsInput(2);
  if (!block) return ctx.error("block_shape must be a 1-D integer tensor", 2);
  size_t spatial = image->size();
  if (in.rank() != 3 || block->size() != spatial || spatial == 0)
    return ctx.error("needs a 3-D input and image_shape/block_shape of equal length, got " + in.describe(),
                     0);
  auto ints = [&](const char* name, int64_t fill, size_t count) {
    auto v = ctx.attrInts(name).value_or(std::vector<int64_t>{});
    if (v.empty()) v.assign(count, fill);
    return v;
  };
  std::vector<int64_t> dilations = ints("dilations", 1, spatial), strides = ints("strides", 1, spatial),
                       pads = ints("pads", 0, 2 * spatial);
  if (dilations.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
    return ctx.error("dilations, strides and pads must have one entry per spatial axis (pads two)", 0);
  int64_t kernelSize = 1, imageSize = 1, blocks = 1;
  std::vector<int64_t> blocksPerAxis(spatial);
  for (size_t d = 0; d < spatial; ++d) {
    if ((*block)[d] <= 0 || strides[d] <= 0 || dilations[d] <= 0 || (*image)[d] < 0)
      return ctx.error("block_shape, strides and dilations must be positive", 2);
    if (pads[d] < 0 || pads[d + spatial] < 0) return ctx.error("pads must not be negative", 0);
    // Every size from the inputs and attributes is checked: a dilation or image of 2^40 overflows int64.
    auto span = checkedMul(dilations[d], (*block)[d] - 1);
    auto padded = checkedAdd((*image)[d], pads[d]);
    if (padded) padded = checkedAdd(*padded, pads[d + spatial]);
    auto sizes = std::array{checkedMul(kernelSize, (*block)[d]), checkedMul(imageSize, (*image)[d])};
    if (!span || !padded || !sizes[0] || !sizes[1])
      return ctx.error("block_shape, image_shape, dilations and pads make sizes past 2^63", 2);
    blocksPerAxis[d] = *padded > *span ? (*padded - *span - 1) / strides[d] + 1 : 0;  // a block wider: none
    kernelSize = *sizes[0], imageSize = *sizes[1];
    auto total = checkedMul(blocks, blocksPerAxis[d]);
    if (!total) return ctx.error("block_shape, image_shape, dilations and pads make sizes past 2^63", 2);
    blocks = *total;
  }
  int64_t batch = in.dim(0);
  if (in.dim(1) % kernelSize != 0 || in.dim(2) != blocks)
    return ctx.error("input " + in.describe() + " does not match " + std::to_string(kernelSize) +
                         " values per block and " + std::to_string(blocks) + " blocks",
                     0);
  int64_t channels = in.dim(1) / kernelSize;
  Dims outDims{batch, channels};
  for (int64_t v : *image) outDims.push_back(v);
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    std::vector<C> acc(static_cast<size_t>(imageSize));
    for (int64_t plane = 0; plane < batch * channels; ++plane) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t k = 0; k < kernelSize; ++k)
        for (int64_t b = 0; b < blocks; ++b) {
          int64_t kRest = k, bRest = b, at = 0;
          bool inside = true;
          for (size_t d = spatial; d-- > 0;) {
            int64_t kd = kRest % (*block)[d], bd = bRest % blocksPerAxis[d];
            kRest /= (*block)[d];
            bRest /= blocksPerAxis[d];
            int64_t coord = bd * strides[d] - pads[d] + kd * dilations[d];
            if (coord < 0 || coord >= (*image)[d]) inside = false;
          }
          if (!inside) continue;
          kRest = k, bRest = b;
          int64_t scale = 1;
          for (size_t d = spatial; d-- > 0;) {
            int64_t kd = kRest % (*block)[d], bd = bRest % blocksPerAxis[d];
            kRest /= (*block)[d];
            bRest /= blocksPerAxis[d];
            at += (bd * strides[d] - pads[d] + kd * dilations[d]) * scale;
            scale *= (*image)[d];
          }
          acc[static_cast<size_t>(at)] += C(src[(plane * kernelSize + k) * blocks + b]);
        }
      for (int64_t i = 0; i < imageSize; ++i) dst[plane * imageSize + i] = fromCompute<T>(acc[size_t(i)]);
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerCol2ImCpuKernels(KernelRegistry& r) {
  r.add(kernel("Col2Im", col2ImKernel, 18));
}

}  // namespace onyx::exec
