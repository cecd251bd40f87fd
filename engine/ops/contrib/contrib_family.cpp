// The contrib family: ONNX Runtime's com.microsoft ops, as its transformer optimizer, quantizers and float16
// converter leave them in exported models (Attention, SkipLayerNormalization, Gelu, MatMulNBits, ...). Its
// one registration function: the schema table, then each op's CPU kernels.
#include "ops/op_family.h"

namespace onyx {
void registerContribSchemas(OpRegistry& registry);  // contrib_shapes.cpp
void registerQLinearSchemas(OpRegistry& registry);  // qlinear_shapes.cpp
}  // namespace onyx

namespace onyx::exec::contrib {
void registerContribNormCpuKernels(KernelRegistry& registry);  // contrib_norm_cpu.cpp
void registerContribActivationCpuKernels(KernelRegistry& registry);  // contrib_activation_cpu.cpp
void registerContribAttentionCpuKernels(KernelRegistry& registry);  // contrib_attention_cpu.cpp
void registerGroupQueryAttentionCpuKernels(KernelRegistry& registry);  // contrib_gqa_cpu.cpp
void registerContribRotaryCpuKernels(KernelRegistry& registry);  // contrib_rotary_cpu.cpp
void registerMultiHeadAttentionCpuKernels(KernelRegistry& registry);  // contrib_mha_cpu.cpp
void registerEmbedLayerNormCpuKernels(KernelRegistry& registry);  // embed_layer_norm_cpu.cpp
void registerContribQuantCpuKernels(KernelRegistry& registry);  // contrib_quant_cpu.cpp
void registerGatherBlockQuantizedCpuKernels(KernelRegistry& registry);  // gather_block_quantized_cpu.cpp
void registerFusedConvCpuKernels(KernelRegistry& registry);  // fused_conv_cpu.cpp
void registerMatMulNBitsCpuKernels(KernelRegistry& registry);  // matmul_nbits_cpu.cpp
void registerFusedMatMulCpuKernels(KernelRegistry& registry);  // fused_matmul_cpu.cpp
void registerQLinearElementwiseCpuKernels(KernelRegistry& registry);  // qlinear_elementwise_cpu.cpp
void registerQLinearPoolCpuKernels(KernelRegistry& registry);  // qlinear_pool_cpu.cpp
}  // namespace onyx::exec::contrib

namespace onyx::ops::contrib {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerContribSchemas);
  registrar.add(registerQLinearSchemas);
  registrar.add(exec::contrib::registerContribNormCpuKernels);  // (Skip)(Simplified)LayerNormalization
  registrar.add(exec::contrib::registerContribActivationCpuKernels);  // Gelu family, BiasAdd, BiasSoftmax
  registrar.add(exec::contrib::registerContribAttentionCpuKernels);  // Attention
  registrar.add(exec::contrib::registerGroupQueryAttentionCpuKernels);  // GroupQueryAttention
  registrar.add(exec::contrib::registerContribRotaryCpuKernels);  // RotaryEmbedding
  registrar.add(exec::contrib::registerMultiHeadAttentionCpuKernels);  // MultiHeadAttention
  registrar.add(exec::contrib::registerEmbedLayerNormCpuKernels);  // EmbedLayerNormalization
  registrar.add(exec::contrib::registerContribQuantCpuKernels);  // MatMulIntegerToFloat, DynamicQuantizeMatMul, Q/DQ
  registrar.add(exec::contrib::registerGatherBlockQuantizedCpuKernels);  // GatherBlockQuantized
  registrar.add(exec::contrib::registerFusedConvCpuKernels);  // FusedConv
  registrar.add(exec::contrib::registerMatMulNBitsCpuKernels);  // MatMulNBits
  registrar.add(exec::contrib::registerFusedMatMulCpuKernels);  // FusedMatMul, FusedGemm
  registrar.add(exec::contrib::registerQLinearElementwiseCpuKernels);  // QLinearAdd/Mul/Sigmoid/LeakyRelu/Softmax/Where
  registrar.add(exec::contrib::registerQLinearPoolCpuKernels);  // QLinearAveragePool/GlobalAveragePool/Concat/ReduceMean
}

}  // namespace onyx::ops::contrib
