// Concat and Split reference kernels: blocks copied along the axis by element size (strings by value).
// Concat's channels-last fast variant is concat_channels_cpu.cpp.
#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

Expected<void> concatKernel(KernelContext& ctx) {
  std::vector<const TensorValue*> inputs;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    inputs.push_back(*t);
  }
  if (inputs.empty()) return ctx.error("needs at least one input");
  const TensorValue& first = *inputs[0];
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), first.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + first.describe(), 0);
  int64_t axis = *axisOpt;
  Dims outDims = first.dims();
  outDims[size_t(axis)] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorValue& t = *inputs[i];
    if (t.rank() != first.rank() || t.dtype() != first.dtype())
      return ctx.error("input " + t.describe() + " does not match " + first.describe(), int(i));
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != axis && t.dim(d) != first.dim(d))
        return ctx.error("cannot concatenate " + t.describe() + " with " + first.describe() + " on axis " +
                             std::to_string(axis),
                         int(i));
    outDims[size_t(axis)] += t.dim(axis);
  }
  auto y = ctx.allocateOutput(0, first.dtype(), outDims);
  if (!y) return y.error();
  const AxisSplit split = axisSplit(outDims, axis);
  const int64_t outer = split.outer, innerUnit = split.inner;
  int64_t outRow = outDims[size_t(axis)] * innerUnit;
  bool ok = dispatchBySize(first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = (*y)->template data<T>();
    int64_t offset = 0;
    for (const TensorValue* t : inputs) {
      int64_t row = t->dim(axis) * innerUnit;
      const T* src = t->data<T>();
      for (int64_t o = 0; o < outer; ++o)
        std::copy(src + o * row, src + (o + 1) * row, dst + o * outRow + offset);
      offset += row;
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Copies a block [outer][axisLen][inner] range along the axis.
template <class T>
void copyAxisRange(const T* src, T* dst, int64_t outer, int64_t srcAxis, int64_t begin, int64_t len,
                   int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    std::copy(src + (o * srcAxis + begin) * inner, src + (o * srcAxis + begin + len) * inner,
              dst + o * len * inner);
}

Expected<void> splitKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + in.describe(), 0);
  int64_t axis = *axisOpt;
  int64_t n = int64_t(ctx.outputCount());
  std::vector<int64_t> sizes;
  if (ctx.opset() >= 13 && ctx.hasInput(1))
    sizes = ctx.input(1).toInts();
  else if (auto s = ctx.attrInts("split"))
    sizes = *s;
  int64_t len = in.dim(axis);
  if (sizes.empty()) {
    int64_t parts = ctx.opset() >= 18 ? ctx.attrInt("num_outputs", n) : n;
    int64_t chunk = len == 0 ? 0 : (len - 1) / std::max<int64_t>(parts, 1) + 1;  // len + parts - 1 overflows
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, len - i * chunk)));
  }
  // Checked before any copy: a negative size let an earlier output be longer than the axis (fuzz audit).
  for (int64_t s : sizes)
    if (s < 0) return ctx.error("has a negative split size (" + std::to_string(s) + ")", 1);
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s > len - sum)  // also keeps the sum from overflowing (sizes of INT64_MAX)
      return ctx.error("split sizes add up past dim " + std::to_string(len) + " of " + in.describe(), 1);
    sum += s;
  }
  if (int64_t(sizes.size()) != n || sum != len)
    return ctx.error("split sizes do not add up to dim " + std::to_string(len) + " of " + in.describe(), 1);
  const AxisSplit split = axisSplit(in.dims(), axis);
  const int64_t outer = split.outer, inner = split.inner;
  int64_t begin = 0;
  for (int64_t i = 0; i < n; ++i) {
    Dims dims = in.dims();
    dims[size_t(axis)] = sizes[size_t(i)];
    auto y = ctx.allocateOutput(size_t(i), in.dtype(), dims);
    if (!y) return y.error();
    bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      copyAxisRange(in.data<T>(), (*y)->template data<T>(), outer, len, begin, sizes[size_t(i)], inner);
    });
    if (!ok) return ctx.unsupportedType(0);
    begin += sizes[size_t(i)];
  }
  return {};
}

}  // namespace

void registerConcatSplitCpuKernels(KernelRegistry& r) {
  r.add(kernel("Concat", concatKernel, 1));
  r.add(kernel("Split", splitKernel, 1));
}

}  // namespace onyx::exec
