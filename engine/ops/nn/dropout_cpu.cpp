// Dropout at inference: the input unchanged (training mode with a positive ratio is an error: it is
// random) and, when asked for, an all-true mask.
#include <cstring>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> dropoutKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  bool training = ctx.hasInput(2) && ctx.input(2).count() && ctx.input(2).intAt(0) != 0;
  double ratio =
      ctx.hasInput(1) && ctx.input(1).count() ? ctx.input(1).doubleAt(0) : ctx.attrFloat("ratio", 0.5f);
  if (training && ratio > 0)
    return ctx.error("training-mode dropout is random; run it with training_mode false", 2);
  ctx.setOutput(0, **x);
  if (ctx.wantsOutput(1)) {
    auto mask = ctx.allocateOutput(1, DataType::Bool, (*x)->dims());
    if (!mask) return mask.error();
    std::memset((*mask)->raw(), 1, (*mask)->byteSize());
  }
  return {};
}

}  // namespace

void registerDropoutCpuKernels(KernelRegistry& r) {
  r.add(kernel("Dropout", dropoutKernel, 1));
}

}  // namespace onyx::exec
