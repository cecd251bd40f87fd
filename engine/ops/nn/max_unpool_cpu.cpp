// MaxUnpool: scatters pooled values back to the flat output positions MaxPool's indices recorded; the rest
// is zero.
#include <cstring>
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

Expected<void> maxUnpoolKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto indices = ctx.requireTensor(1);
  if (!indices) return indices.error();
  const TensorValue& in = **x;
  if (in.rank() < 3) return ctx.error("needs an input of rank >= 3, got " + in.describe(), 0);
  if ((*indices)->count() != in.count()) return ctx.error("needs one index per input element", 1);
  size_t spatial = size_t(in.rank() - 2);
  // Indices address the default output [N, C, (in - 1) * stride - pads + kernel]; an explicit
  // output_shape keeps each value at the same coordinates of the larger tensor.
  auto kernelShape = ctx.attrInts("kernel_shape").value_or(std::vector<int64_t>{});
  if (kernelShape.size() != spatial) return ctx.error("kernel_shape needs one entry per spatial axis", 0);
  auto strides = ctx.attrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  auto pads = ctx.attrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || pads.size() != 2 * spatial)
    return ctx.error("strides and pads need one entry per spatial axis (pads two)", 0);
  Dims defaultDims{in.dim(0), in.dim(1)};
  for (size_t d = 0; d < spatial; ++d) {
    // Checked: negative sizes could multiply to a positive element count that indices then pass (a write past
    // the output), and huge strides overflow.
    if (kernelShape[d] <= 0 || strides[d] <= 0 || pads[d] < 0 || pads[d + spatial] < 0)
      return ctx.error("kernel_shape and strides must be positive and pads not negative", 0);
    auto size = checkedMul(in.dim(int64_t(d) + 2) - 1, strides[d]);
    if (size) size = checkedAdd(*size, kernelShape[d]);
    if (size) size = checkedAdd(*size, -pads[d]);
    if (size) size = checkedAdd(*size, -pads[d + spatial]);
    if (!size || *size < 0)
      return ctx.error("kernel_shape, strides and pads give spatial axis " + std::to_string(d) + " of " +
                           in.describe() + " no valid unpooled size",
                       0);
    defaultDims.push_back(*size);
  }
  Dims outDims = defaultDims;
  if (ctx.hasInput(2)) {
    auto shape = ctx.intsInput(2);
    if (!shape || shape->size() != size_t(in.rank()))
      return ctx.error("output_shape must list one size per input dimension", 2);
    outDims.assign(shape->begin(), shape->end());
    for (size_t d = 0; d < outDims.size(); ++d)
      if (outDims[d] < defaultDims[d] || (d < 2 && outDims[d] != defaultDims[d]))
        return ctx.error("output_shape may only enlarge the spatial dimensions", 2);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  size_t bytes = elementBytes(in.dtype());
  if (bytes == 0 || in.dtype() == DataType::String) return ctx.unsupportedType(0);
  char* dst = static_cast<char*>((*y)->raw());
  const char* src = static_cast<const char*>(in.raw());
  std::memset(dst, 0, (*y)->byteSize());
  int64_t total = elementCount(defaultDims);
  for (int64_t i = 0; i < in.count(); ++i) {
    int64_t at = (*indices)->intAt(i);
    if (at < 0 || at >= total)
      return ctx.error(
          "index " + std::to_string(at) + " is outside the output's " + std::to_string(total) + " elements",
          1);
    int64_t rest = at, target = 0, scale = 1;
    for (size_t d = defaultDims.size(); d-- > 0;) {
      target += (rest % defaultDims[d]) * scale;
      rest /= defaultDims[d];
      scale *= outDims[d];
    }
    std::memcpy(dst + size_t(target) * bytes, src + size_t(i) * bytes, bytes);
  }
  return {};
}

}  // namespace

void registerMaxUnpoolCpuKernels(KernelRegistry& r) {
  r.add(kernel("MaxUnpool", maxUnpoolKernel, 9));
}

}  // namespace onyx::exec
