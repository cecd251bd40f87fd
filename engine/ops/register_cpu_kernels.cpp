// The one list of CPU kernel groups. Each group lives beside its op family (engine/ops/<family>/
// <group>_cpu.cpp) and defines the function declared here; adding a group is one declaration and one call.
#include "exec/kernel.h"

namespace onyx::exec {

void registerActivationCpuKernels(KernelRegistry& registry);
void registerBinaryCpuKernels(KernelRegistry& registry);
void registerUnaryCpuKernels(KernelRegistry& registry);

void registerCpuKernels(KernelRegistry& registry) {
  registerActivationCpuKernels(registry);
  registerBinaryCpuKernels(registry);
  registerUnaryCpuKernels(registry);
}

}  // namespace onyx::exec
