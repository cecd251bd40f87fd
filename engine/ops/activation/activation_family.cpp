// The activation family: activation functions (element-wise; Softmax and its siblings are in nn/) and SwiGLU.
// Its one registration function: the schema table, then each op's CPU kernels (reference before its fast
// variants: among kernels of equal priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerActivationSchemas(OpRegistry& registry);  // activation_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerActivationCpuKernels(KernelRegistry& registry);  // activation_cpu.cpp
void registerSwiGluCpuKernels(KernelRegistry& registry);  // swiglu_cpu.cpp
void registerShrinkSwishCpuKernels(KernelRegistry& registry);  // shrink_swish_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::activation {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerActivationSchemas);  // every activation op
  registrar.add(exec::registerActivationCpuKernels);  // Relu, Sigmoid, ... reference and fast float32
  registrar.add(exec::registerSwiGluCpuKernels);  // SwiGLU
  registrar.add(exec::registerShrinkSwishCpuKernels);  // Shrink, Swish
}

}  // namespace onyx::ops::activation
