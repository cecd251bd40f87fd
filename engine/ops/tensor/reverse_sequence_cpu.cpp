// ReverseSequence: reverses the first sequence_lens[b] steps of each batch entry along time_axis.
#include <cstring>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> reverseSequenceKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto lensT = ctx.requireTensor(1);
  if (!lensT) return lensT.error();
  const TensorValue& in = **x;
  int64_t timeAxis = ctx.attrInt("time_axis", 0), batchAxis = ctx.attrInt("batch_axis", 1);
  if (in.rank() < 2 || !((timeAxis == 0 && batchAxis == 1) || (timeAxis == 1 && batchAxis == 0)))
    return ctx.error("needs rank >= 2 and time_axis/batch_axis of 0 and 1, got " + in.describe(), 0);
  int64_t steps = in.dim(timeAxis), batch = in.dim(batchAxis);
  if ((*lensT)->count() != batch)
    return ctx.error("sequence_lens must have one entry per batch element (" + std::to_string(batch) + ")",
                     1);
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  int64_t inner = 1;
  for (int64_t d = 2; d < in.rank(); ++d) inner *= in.dim(d);
  size_t elemBytes = static_cast<size_t>(elementBytes(in.dtype()));
  if (elemBytes == 0 || in.dtype() == DataType::String) return ctx.unsupportedType(0);
  const char* src = static_cast<const char*>(in.raw());
  char* dst = static_cast<char*>((*y)->raw());
  auto offset = [&](int64_t t, int64_t b) {
    int64_t row = timeAxis == 0 ? t * batch + b : b * steps + t;
    return static_cast<size_t>(row * inner) * elemBytes;
  };
  for (int64_t b = 0; b < batch; ++b) {
    int64_t len = (*lensT)->intAt(b);
    if (len < 0 || len > steps)
      return ctx.error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
                           " is outside [0, " + std::to_string(steps) + "]",
                       1);
    for (int64_t t = 0; t < steps; ++t) {
      int64_t from = t < len ? len - 1 - t : t;
      std::memcpy(dst + offset(t, b), src + offset(from, b), static_cast<size_t>(inner) * elemBytes);
    }
  }
  return {};
}

}  // namespace

void registerReverseSequenceCpuKernels(KernelRegistry& r) {
  r.add(kernel("ReverseSequence", reverseSequenceKernel, 10));
}

}  // namespace onyx::exec
