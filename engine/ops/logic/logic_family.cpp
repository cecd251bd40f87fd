// The logic family: comparisons, boolean and bitwise ops. Its one registration function: the schema table,
// then each op's CPU kernels (reference before its fast variants: among kernels of equal priority the first
// registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerLogicSchemas(OpRegistry& registry);  // logic_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerCompareCpuKernels(KernelRegistry& registry);  // compare_cpu.cpp
}  // namespace onyx::exec

namespace onyx::exec::vulkan {
void registerWhereVulkanKernels(VulkanKernelRegistry& registry);  // where_vulkan.cpp
}  // namespace onyx::exec::vulkan

namespace onyx::ops::logic {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerLogicSchemas);
  registrar.add(exec::registerCompareCpuKernels);  // Equal, Greater, Less, And, Or, Xor, Where...
  registrar.add(exec::vulkan::registerWhereVulkanKernels);  // Where
}

}  // namespace onyx::ops::logic
