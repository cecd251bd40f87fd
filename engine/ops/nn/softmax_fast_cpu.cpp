// Softmax and LogSoftmax of float32 along the last (contiguous) axis, the attention case: per row a
// vectorised max, exp-and-sum and scale (exec/cpu/fast_math). Other axes and types go to the reference
// kernel in softmax_cpu.cpp, which stays the oracle.
#include <cmath>

#include "exec/cpu/fast_math.h"
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

template <bool Log>
Expected<void> softmaxRows(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  const int64_t rank = x.rank();
  const bool legacy = ctx.opset() < 13;  // flattened to 2-D at axis: rows are contiguous anyway
  auto axis = normalizeAxis(ctx.attrInt("axis", legacy ? 1 : -1), std::max<int64_t>(rank, 1));
  if (x.dtype() != DataType::Float || !axis || rank == 0 || (!legacy && *axis != rank - 1))
    return runReferenceKernel(ctx);
  int64_t len = 1;
  for (int64_t d = *axis; d < rank; ++d) len *= x.dim(d);
  auto y = ctx.allocateOutput(0, DataType::Float, x.dims());
  if (!y) return y.error();
  if (len == 0 || x.count() == 0) return {};
  const int64_t rows = x.count() / len;
  const float* src = x.data<float>();
  float* dst = (*y)->data<float>();
  ctx.parallelFor(rows, std::max<int64_t>(1, 4096 / len), [&](int64_t b, int64_t e) {
    fastSoftmaxRows(src + b * len, dst + b * len, e - b, len, Log);
  });
  return {};
}

}  // namespace

void registerSoftmaxFastCpuKernels(KernelRegistry& r) {
  for (bool log : {false, true}) {
    KernelDef def = kernel(log ? "LogSoftmax" : "Softmax", log ? softmaxRows<true> : softmaxRows<false>, 1);
    def.variant = "fast";
    def.isaDispatched = true;
    def.priority = 10;
    r.add(std::move(def));
  }
}

}  // namespace onyx::exec
