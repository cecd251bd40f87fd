// CenterCropPad: crops or zero-pads each listed axis to the requested length, keeping the centre.
#include <cstring>
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> centerCropPadKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto lengths = ctx.intsInput(1);
  if (!lengths) return ctx.error("shape must be a 1-D integer tensor", 1);
  int64_t rank = in.rank();
  std::vector<int64_t> axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{});
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  if (axes.size() != lengths->size())
    return ctx.error("shape has " + std::to_string(lengths->size()) + " entries but there are " +
                         std::to_string(axes.size()) + " axes",
                     1);
  if (in.dtype() == DataType::String || elementBytes(in.dtype()) == 0) return ctx.unsupportedType(0);
  Dims outDims(in.dims().begin(), in.dims().end());
  std::vector<int64_t> shift(static_cast<size_t>(rank), 0);  // input index = output index + shift
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis) return ctx.error("axis " + std::to_string(axes[i]) + " is out of range", 0);
    int64_t target = (*lengths)[i], have = in.dim(*axis);
    if (target < 0) return ctx.error("shape entries must be non-negative", 1);
    outDims[static_cast<size_t>(*axis)] = target;
    shift[static_cast<size_t>(*axis)] = target <= have ? (have - target) / 2 : -((target - have) / 2);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  size_t bytes = elementBytes(in.dtype());
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>((*y)->raw());
  std::memset(dst, 0, (*y)->byteSize());
  std::vector<int64_t> inStrides(static_cast<size_t>(rank), 1);
  for (int64_t d = rank - 2; d >= 0; --d) inStrides[size_t(d)] = inStrides[size_t(d + 1)] * in.dim(d + 1);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t flat = 0; flat < (*y)->count(); ++flat) {
    int64_t rest = flat, from = 0;
    bool inside = true;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t extent = outDims[size_t(d)], i = rest % extent + shift[size_t(d)];
      rest /= extent;
      if (i < 0 || i >= in.dim(d)) {
        inside = false;
        break;
      }
      from += i * inStrides[size_t(d)];
    }
    if (inside) std::memcpy(dst + size_t(flat) * bytes, src + size_t(from) * bytes, bytes);
  }
  return {};
}

}  // namespace

void registerCenterCropPadCpuKernels(KernelRegistry& r) {
  r.add(kernel("CenterCropPad", centerCropPadKernel, 18));
}

}  // namespace onyx::exec
