// The quantization family: quantize, dequantize and the integer ops. Its one registration function: the
// schema table, then each op's CPU kernels (reference before its fast variants: among kernels of equal
// priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerQuantizationSchemas(OpRegistry& registry);  // quantization_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerQLinearCpuKernels(KernelRegistry& registry);  // qlinear_cpu.cpp
void registerQConvCpuKernels(KernelRegistry& registry);  // qconv_cpu.cpp
void registerMatMulIntegerCpuKernels(KernelRegistry& registry);  // matmul_integer_cpu.cpp
void registerQuantizeLinearCpuKernels(KernelRegistry& registry);  // quantize_linear_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::quantization {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerQuantizationSchemas);
  registrar.add(exec::registerQLinearCpuKernels);  // DynamicQuantizeLinear, QLinearMatMul...
  registrar.add(exec::registerQConvCpuKernels);  // ConvInteger, QLinearConv
  registrar.add(exec::registerMatMulIntegerCpuKernels);  // MatMulInteger
  registrar.add(exec::registerQuantizeLinearCpuKernels);  // QuantizeLinear, DequantizeLinear
}

}  // namespace onyx::ops::quantization
