// Vulkan kernel for Where (where_vulkan.comp): the boolean condition is read on the host and uploaded as
// int32; x and y broadcast like the output.
#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

Expected<void> runWhere(VulkanRun& run) {
  const TensorValue& cond = run.kernel().input(0);
  const TensorValue& a = run.input(1);
  const TensorValue& b = run.input(2);
  auto dims = broadcastShapes({&cond.dims(), &a.dims(), &b.dims()});
  if (!dims) return run.error("condition, X and Y do not broadcast together");
  TensorValue flags = TensorValue::allocate(DataType::Int32, cond.dims());
  for (int64_t i = 0; i < cond.count(); ++i) flags.data<int32_t>()[i] = cond.intAt(i) != 0;
  auto y = run.output(0, a.dtype(), *dims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  auto device = run.upload(flags);
  if (!device) return device.error();
  Dims out = *dims;
  Dims sc = broadcastStridesTo(cond.dims(), out), sa = broadcastStridesTo(a.dims(), out),
       sb = broadcastStridesTo(b.dims(), out);
  collapseDims(out, {&sc, &sa, &sb});
  if (out.size() > size_t(kMaxRank)) return run.fallback("broadcast over more than 6 dims");
  Push push;
  push.add(y->count()).add(int64_t(out.size()));
  for (size_t d = 0; d < out.size(); ++d)
    push.at(2 + int(d), out[d]).at(8 + int(d), sc[d]).at(14 + int(d), sa[d]).at(20 + int(d), sb[d]);
  return run.dispatch("where_vulkan", {}, {&*device, &a, &b, &*y}, push, y->count(),
                      a.dtype() == DataType::Float16);
}

}  // namespace

void registerWhereVulkanKernels(VulkanKernelRegistry& registry) {
  VulkanKernelDef def{"Where", 9};
  def.function = runWhere;
  def.hostInputs = {0};
  registry.add(std::move(def));
}

}  // namespace onyx::exec::vulkan
