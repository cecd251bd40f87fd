// The reduction family: reductions over axes, ArgMax and ArgMin. Its one registration function: the schema
// table, then each op's CPU kernels (reference before its fast variants: among kernels of equal priority the
// first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerReductionSchemas(OpRegistry& registry);  // reduction_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerReduceCpuKernels(KernelRegistry& registry);  // reduce_cpu.cpp
void registerTopKCpuKernels(KernelRegistry& registry);  // topk_cpu.cpp
}  // namespace onyx::exec

namespace onyx::exec::vulkan {
void registerReduceVulkanKernels(VulkanKernelRegistry& registry);  // reduce_vulkan.cpp
}  // namespace onyx::exec::vulkan

namespace onyx::ops::reduction {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerReductionSchemas);
  registrar.add(exec::registerReduceCpuKernels);
  registrar.add(exec::vulkan::registerReduceVulkanKernels);
  registrar.add(exec::registerTopKCpuKernels);  // TopK
}

}  // namespace onyx::ops::reduction
