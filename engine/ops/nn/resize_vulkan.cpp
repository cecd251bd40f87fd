// Resize on the Vulkan device (resize_vulkan.comp): the host plans the taps with the CPU kernel's geometry
// (resize_plan.h) and the shader sums them. Handled: rank >= 2 with the leading dims unchanged, at most 4 taps
// per output index (nearest, linear, cubic without antialiasing), no tf_crop_and_resize extrapolation. Other
// cases fall back to the CPU.
#include <bit>

#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "ops/nn/resize_plan.h"

namespace onyx::exec::vulkan {
namespace {

constexpr size_t kTaps = 4;

// Appends one dim's table: kTaps (index, weight bits) pairs per output index, zero weights as padding.
bool appendTable(const std::vector<std::vector<ResizeTap>>& dimTaps, std::vector<int32_t>& words) {
  for (const std::vector<ResizeTap>& taps : dimTaps) {
    if (taps.empty() || taps.size() > kTaps) return false;
    for (size_t t = 0; t < kTaps; ++t) {
      words.push_back(t < taps.size() ? int32_t(taps[t].index) : 0);
      words.push_back(std::bit_cast<int32_t>(t < taps.size() ? float(taps[t].weight) : 0.0f));
    }
  }
  return true;
}

Expected<void> runResize(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  if (x.rank() < 2) return run.fallback("rank below 2");
  auto plan = planResize(run.kernel(), x);
  if (!plan) return plan.error();
  const int64_t rank = x.rank();
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (!plan->keepsDim(size_t(d), x.dim(d))) return run.fallback("resizes a leading dim");
  std::vector<int32_t> words;
  if (!appendTable(plan->taps[size_t(rank - 2)], words)) return run.fallback("more than 4 taps or extrapolation");
  const auto wTable = int64_t(words.size());
  if (!appendTable(plan->taps[size_t(rank - 1)], words)) return run.fallback("more than 4 taps or extrapolation");
  auto y = run.output(0, x.dtype(), plan->outDims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  TensorValue table = TensorValue::allocate(DataType::Int32, {int64_t(words.size())});
  std::copy(words.begin(), words.end(), table.data<int32_t>());
  auto device = run.upload(table);
  if (!device) return device.error();
  Push push;
  push.add(y->count()).add(plan->outDims[size_t(rank - 2)]).add(plan->outDims[size_t(rank - 1)]);
  push.add(x.dim(rank - 2)).add(x.dim(rank - 1)).add(wTable);
  return run.dispatch("resize_vulkan", {}, {&x, &*device, &*y}, push, y->count(), x.dtype() == DataType::Float16);
}

}  // namespace

void registerResizeVulkanKernels(VulkanKernelRegistry& registry) {
  VulkanKernelDef def{"Resize", 10};
  def.function = runResize;
  def.hostInputs = {1, 2, 3};  // roi, scales, sizes (opset 10: scales at 1)
  registry.add(std::move(def));
}

}  // namespace onyx::exec::vulkan
