// The one list of Vulkan kernel groups. Each group lives beside its op family (engine/ops/<family>/
// <group>_vulkan.cpp, with its shaders <group>*_vulkan.comp) and defines the function declared here.
// The fused element-wise node of the passes (onyx.fused functions) sits beside the CPU's fused kernel in
// exec/fused_elementwise_vulkan.*.
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {

void registerUnaryVulkanKernels(VulkanKernelRegistry& registry);
void registerBinaryVulkanKernels(VulkanKernelRegistry& registry);
void registerMatmulVulkanKernels(VulkanKernelRegistry& registry);
void registerMovementVulkanKernels(VulkanKernelRegistry& registry);
void registerSelectVulkanKernels(VulkanKernelRegistry& registry);
void registerConvVulkanKernels(VulkanKernelRegistry& registry);
void registerPoolVulkanKernels(VulkanKernelRegistry& registry);
void registerNormVulkanKernels(VulkanKernelRegistry& registry);
void registerReduceVulkanKernels(VulkanKernelRegistry& registry);
void registerFusedVulkanKernels(VulkanKernelRegistry& registry);
void registerResizeVulkanKernels(VulkanKernelRegistry& registry);

void registerVulkanKernels(VulkanKernelRegistry& registry) {
  registerUnaryVulkanKernels(registry);
  registerBinaryVulkanKernels(registry);
  registerMatmulVulkanKernels(registry);
  registerMovementVulkanKernels(registry);
  registerSelectVulkanKernels(registry);
  registerConvVulkanKernels(registry);
  registerPoolVulkanKernels(registry);
  registerNormVulkanKernels(registry);
  registerReduceVulkanKernels(registry);
  registerFusedVulkanKernels(registry);
  registerResizeVulkanKernels(registry);
}

}  // namespace onyx::exec::vulkan
