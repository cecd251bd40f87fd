// Slice reference kernel and the bounds it shares with its view variant (slice_view_cpu.cpp, through
// movement_params.h): starts, ends, axes and steps from attributes before opset 10, inputs after.
#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"
#include "ops/tensor/slice_range.h"

namespace onyx::exec {

Expected<SliceBounds> sliceBounds(const KernelContext& ctx, const TensorValue& in) {
  int64_t rank = in.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attrInts("starts").value_or(std::vector<int64_t>{});
    ends = ctx.attrInts("ends").value_or(std::vector<int64_t>{});
    axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    starts = ctx.intsInput(1).value_or(std::vector<int64_t>{});
    ends = ctx.intsInput(2).value_or(std::vector<int64_t>{});
    axes = ctx.intsInput(3).value_or(std::vector<int64_t>{});
    steps = ctx.intsInput(4).value_or(std::vector<int64_t>{});
  }
  if (starts.size() != ends.size()) return ctx.error("starts and ends differ in length", 1);
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.error("axes or steps differ in length from starts", 3);
  SliceBounds bounds;
  bounds.begin.assign(size_t(rank), 0);
  bounds.step.assign(size_t(rank), 1);
  bounds.outDims = in.dims();
  std::vector<bool> sliced(size_t(rank), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis)
      return ctx.error("axis " + std::to_string(axes[i]) + " is out of range for " + in.describe(), 3);
    // ONNX forbids it; the second entry used to win silently.
    if (sliced[size_t(*axis)]) return ctx.error("axes name axis " + std::to_string(*axis) + " twice", 3);
    sliced[size_t(*axis)] = true;
    int64_t dim = in.dim(*axis), s = steps[i];
    if (s == 0) return ctx.error("step is 0", 4);
    const SliceRange range = sliceRange(dim, starts[i], ends[i], s);
    bounds.outDims[size_t(*axis)] = range.count;
    bounds.begin[size_t(*axis)] = range.first;
    bounds.step[size_t(*axis)] = s;
  }
  return bounds;
}

namespace {

Expected<void> sliceKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  auto bounds = sliceBounds(ctx, in);
  if (!bounds) return bounds.error();
  const std::vector<int64_t>& begin = bounds->begin;
  const std::vector<int64_t>& step = bounds->step;
  const Dims& outDims = bounds->outDims;
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t total = elementCount(outDims);
  if (total == 0) return {};
  auto inStrides = rowMajorStrides(in.dims());
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t inner = rank ? outDims.back() : 1;
    int64_t rows = total / inner;
    int64_t innerStep = rank ? step.back() * inStrides.back() : 1;
    int64_t innerBegin = rank ? begin.back() * inStrides.back() : 0;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t off = innerBegin, rest = row;
      for (int64_t d = rank - 2; d >= 0; --d) {
        int64_t i = rest % outDims[size_t(d)];
        rest /= outDims[size_t(d)];
        off += (begin[size_t(d)] + i * step[size_t(d)]) * inStrides[size_t(d)];
      }
      T* o = dst + row * inner;
      if (innerStep == 1)
        std::copy(src + off, src + off + inner, o);
      else
        for (int64_t i = 0; i < inner; ++i) o[i] = src[off + i * innerStep];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerSliceCpuKernels(KernelRegistry& r) {
  r.add(kernel("Slice", sliceKernel, 1));
}

}  // namespace onyx::exec
