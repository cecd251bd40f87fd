// The math family: arithmetic, element-wise math, MatMul and Gemm, Einsum, linear algebra and signal ops. Its
// one registration function: the schema table, then each op's CPU kernels (reference before its fast
// variants: among kernels of equal priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerMathSchemas(OpRegistry& registry);  // math_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerBinaryCpuKernels(KernelRegistry& registry);  // binary_cpu.cpp
void registerUnaryCpuKernels(KernelRegistry& registry);  // unary_cpu.cpp
void registerMatmulCpuKernels(KernelRegistry& registry);  // matmul_cpu.cpp
void registerMatmulDnnlCpuKernels(KernelRegistry& registry);  // matmul_dnnl_cpu.cpp
void registerHalfMatMulCpuKernels(KernelRegistry& registry);  // matmul_half_cpu.cpp
void registerEinsumCpuKernels(KernelRegistry& registry);  // einsum_cpu.cpp
void registerLinalgCpuKernels(KernelRegistry& registry);  // linalg_cpu.cpp
void registerCumulativeCpuKernels(KernelRegistry& registry);  // cumulative_cpu.cpp
}  // namespace onyx::exec

namespace onyx::exec::vulkan {
void registerBinaryVulkanKernels(VulkanKernelRegistry& registry);  // binary_vulkan.cpp
void registerUnaryVulkanKernels(VulkanKernelRegistry& registry);  // unary_vulkan.cpp
void registerMatmulVulkanKernels(VulkanKernelRegistry& registry);  // matmul_vulkan.cpp
}  // namespace onyx::exec::vulkan

namespace onyx::ops::math {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerMathSchemas);
  registrar.add(exec::registerBinaryCpuKernels);  // Add, Sub, Mul, Div, Pow...
  registrar.add(exec::registerUnaryCpuKernels);  // Abs, Neg, Exp, Log, Sqrt...
  registrar.add(exec::vulkan::registerUnaryVulkanKernels);  // also the activations' Vulkan kernels
  registrar.add(exec::vulkan::registerBinaryVulkanKernels);
  registrar.add(exec::registerMatmulCpuKernels);  // MatMul, Gemm reference
  registrar.add(exec::registerMatmulDnnlCpuKernels);  // MatMul, Gemm through oneDNN
  registrar.add(exec::registerHalfMatMulCpuKernels);  // MatMul, Gemm with float16/bfloat16 weights
  registrar.add(exec::vulkan::registerMatmulVulkanKernels);
  registrar.add(exec::registerEinsumCpuKernels);  // Einsum
  registrar.add(exec::registerLinalgCpuKernels);  // Det
  registrar.add(exec::registerCumulativeCpuKernels);  // CumSum, CumProd
}

}  // namespace onyx::ops::math
