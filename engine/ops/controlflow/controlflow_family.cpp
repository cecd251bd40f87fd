// The controlflow family: If, Loop, Scan and the optional ops. Its one registration function: the schema
// table, then each op's CPU kernels (reference before its fast variants: among kernels of equal priority the
// first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerControlFlowSchemas(OpRegistry& registry);  // controlflow_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerControlCpuKernels(KernelRegistry& registry);  // control_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::controlflow {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerControlFlowSchemas);  // every control-flow op
  registrar.add(exec::registerControlCpuKernels);  // If, Loop, Scan
}

}  // namespace onyx::ops::controlflow
