// The rnn family: LSTM, GRU and RNN. Its one registration function: the schema table, then each op's CPU
// kernels (reference before its fast variants: among kernels of equal priority the first registered runs) and
// its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerRnnSchemas(OpRegistry& registry);  // rnn_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerRnnCpuKernels(KernelRegistry& registry);  // rnn_cpu.cpp
void registerRnnGemmCpuKernels(KernelRegistry& registry);  // rnn_gemm_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::rnn {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerRnnSchemas);
  registrar.add(exec::registerRnnCpuKernels);  // reference
  registrar.add(exec::registerRnnGemmCpuKernels);  // float32 through GEMM
}

}  // namespace onyx::ops::rnn
