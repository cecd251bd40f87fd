// The sequence family: sequences and SequenceMap. Its one registration function: the schema table, then each
// op's CPU kernels (reference before its fast variants: among kernels of equal priority the first registered
// runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerSequenceSchemas(OpRegistry& registry);  // sequence_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerSequenceCpuKernels(KernelRegistry& registry);  // sequence_cpu.cpp
void registerSequenceMapCpuKernels(KernelRegistry& registry);  // sequence_map_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::sequence {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerSequenceSchemas);
  registrar.add(exec::registerSequenceCpuKernels);
  registrar.add(exec::registerSequenceMapCpuKernels);  // SequenceMap
}

}  // namespace onyx::ops::sequence
