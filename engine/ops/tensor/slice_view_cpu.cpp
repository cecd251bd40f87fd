// Slice without copying when the result is one contiguous block of the input (ShuffleNet's channel split,
// a range of rows): the output is a view of the input's storage, which the memory planner treats as an
// alias. Other unit-step slices copy whole inner runs; the reference kernel takes negative steps and
// strings.
#include <cstring>

#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

Expected<void> sliceView(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.dtype() == DataType::String || in.rank() == 0) return runReferenceKernel(ctx);
  auto bounds = sliceBounds(ctx, in);
  if (!bounds) return bounds.error();
  for (int64_t s : bounds->step)
    if (s != 1) return runReferenceKernel(ctx);
  const Dims& out = bounds->outDims;
  const int64_t rank = in.rank();
  const auto strides = rowMajorStrides(in.dims());
  const size_t bytes = elementBytes(in.dtype());
  int64_t offset = 0;
  for (int64_t d = 0; d < rank; ++d) offset += bounds->begin[size_t(d)] * strides[size_t(d)];
  // Contiguous: below the outermost axis with more than one element taken, every axis is taken whole.
  int64_t outermost = 0;
  while (outermost < rank && out[size_t(outermost)] == 1) ++outermost;
  bool contiguous = true;
  for (int64_t d = outermost + 1; d < rank; ++d) contiguous = contiguous && out[size_t(d)] == in.dim(d);
  if (contiguous || elementCount(out) == 0) {
    auto* base = static_cast<char*>(const_cast<void*>(in.raw())) + size_t(offset) * bytes;
    TensorValue view = TensorValue::view(in.dtype(), out, elementCount(out) ? base : nullptr, in.owner());
    view.setDevice(in.device());
    ctx.setOutput(0, std::move(view));
    return {};
  }
  // Copy runs: the innermost axes taken whole merge with the last partial one.
  int64_t run = out[size_t(rank - 1)], runAxes = 1;
  while (runAxes < rank && out[size_t(rank - runAxes)] == in.dim(rank - runAxes)) {
    run *= out[size_t(rank - runAxes - 1)];
    ++runAxes;
  }
  auto y = ctx.allocateOutput(0, in.dtype(), out);
  if (!y) return y.error();
  const int64_t rows = elementCount(out) / run;
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>((*y)->raw());
  ctx.parallelFor(rows, std::max<int64_t>(1, 8192 / run), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t at = offset, rest = row;
      for (int64_t d = rank - runAxes - 1; d >= 0; --d) {
        at += (rest % out[size_t(d)]) * strides[size_t(d)];
        rest /= out[size_t(d)];
      }
      std::memcpy(dst + size_t(row * run) * bytes, src + size_t(at) * bytes, size_t(run) * bytes);
    }
  });
  return {};
}

}  // namespace

void registerSliceViewCpuKernels(KernelRegistry& r) {
  KernelDef def = kernel("Slice", sliceView, 1);
  def.variant = "view";
  def.priority = 10;
  r.add(std::move(def));
}

}  // namespace onyx::exec
