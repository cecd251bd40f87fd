// The one list of Vulkan kernel groups. Each group lives beside its op family (engine/ops/<family>/
// <group>_vulkan.cpp, with its shaders <group>*_vulkan.comp) and defines the function declared here.
// (A fused element-wise node from the passes joins as one more group, its expression compiled into a
// specialization of unary/binary shaders or its own shader.)
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
}

}  // namespace onyx::exec::vulkan
