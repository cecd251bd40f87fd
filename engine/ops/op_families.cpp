// The three fill hooks the lower floors declare (catalog/op_registry.h, exec/kernel.h,
// exec/vulkan/vulkan_kernel.h), each running every op family with only its own registry set.
#include "ops/op_family.h"

namespace onyx {

void registerOpSchemas(OpRegistry& registry) {
  ops::registerOpFamilies({.schemas = &registry});
}

}  // namespace onyx

namespace onyx::exec {

void registerCpuKernels(KernelRegistry& registry) {
  ops::registerOpFamilies({.cpu = &registry});
}

}  // namespace onyx::exec

namespace onyx::exec::vulkan {

// The fused element-wise node of the passes (onyx.fused functions) is no op family: its kernel sits beside
// the CPU's fused kernel in exec/fused_elementwise_vulkan.cpp.
void registerFusedVulkanKernels(VulkanKernelRegistry& registry);

void registerVulkanKernels(VulkanKernelRegistry& registry) {
  ops::registerOpFamilies({.vulkan = &registry});
  registerFusedVulkanKernels(registry);
}

}  // namespace onyx::exec::vulkan
