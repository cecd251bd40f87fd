// The nn family: convolutions, pools, normalizations, softmax, attention, resampling and losses. Its one
// registration function: the schema table, then each op's CPU kernels (reference before its fast variants:
// among kernels of equal priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerNnSchemas(OpRegistry& registry);  // nn_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerNormCpuKernels(KernelRegistry& registry);  // norm_cpu.cpp
void registerSoftmaxCpuKernels(KernelRegistry& registry);  // softmax_cpu.cpp
void registerSoftmaxFastCpuKernels(KernelRegistry& registry);  // softmax_fast_cpu.cpp
void registerLayerNormFastCpuKernels(KernelRegistry& registry);  // layer_norm_fast_cpu.cpp
void registerConvCpuKernels(KernelRegistry& registry);  // conv_cpu.cpp
void registerConvDnnlCpuKernels(KernelRegistry& registry);  // conv_dnnl_cpu.cpp
void registerPoolCpuKernels(KernelRegistry& registry);  // pool_cpu.cpp
void registerLossCpuKernels(KernelRegistry& registry);  // loss_cpu.cpp
void registerNormExtraCpuKernels(KernelRegistry& registry);  // norm_extra_cpu.cpp
void registerAttentionCpuKernels(KernelRegistry& registry);  // attention_cpu.cpp
void registerRotaryEmbeddingCpuKernels(KernelRegistry& registry);  // rotary_embedding_cpu.cpp
void registerCol2ImCpuKernels(KernelRegistry& registry);  // col2im_cpu.cpp
void registerMaxUnpoolCpuKernels(KernelRegistry& registry);  // max_unpool_cpu.cpp
void registerGridSampleCpuKernels(KernelRegistry& registry);  // grid_sample_cpu.cpp
void registerRecurrentMixerCpuKernels(KernelRegistry& registry);  // recurrent_mixer_cpu.cpp
void registerResizeCpuKernels(KernelRegistry& registry);  // resize_cpu.cpp
void registerResizeFastCpuKernels(KernelRegistry& registry);  // resize_fast_cpu.cpp
void registerCenterCropPadCpuKernels(KernelRegistry& registry);  // center_crop_pad_cpu.cpp
void registerDropoutCpuKernels(KernelRegistry& registry);  // dropout_cpu.cpp
void registerSpaceDepthCpuKernels(KernelRegistry& registry);  // space_depth_cpu.cpp
}  // namespace onyx::exec

namespace onyx::exec::vulkan {
void registerNormVulkanKernels(VulkanKernelRegistry& registry);  // norm_vulkan.cpp
void registerConvVulkanKernels(VulkanKernelRegistry& registry);  // conv_vulkan.cpp
void registerPoolVulkanKernels(VulkanKernelRegistry& registry);  // pool_vulkan.cpp
void registerResizeVulkanKernels(VulkanKernelRegistry& registry);  // resize_vulkan.cpp
}  // namespace onyx::exec::vulkan

namespace onyx::ops::nn {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerNnSchemas);
  registrar.add(exec::registerNormCpuKernels);
  registrar.add(exec::registerSoftmaxCpuKernels);  // Softmax, LogSoftmax, Hardmax reference
  registrar.add(exec::registerSoftmaxFastCpuKernels);  // Softmax, LogSoftmax float32 rows
  registrar.add(exec::registerLayerNormFastCpuKernels);  // LayerNormalization float32 rows
  registrar.add(exec::vulkan::registerNormVulkanKernels);  // the normalizations, Softmax, LogSoftmax
  registrar.add(exec::registerConvCpuKernels);  // Conv, ConvTranspose reference
  registrar.add(exec::registerConvDnnlCpuKernels);  // Conv through oneDNN
  registrar.add(exec::vulkan::registerConvVulkanKernels);  // Conv, ConvTranspose
  registrar.add(exec::registerPoolCpuKernels);  // the pools (2-D float32 fast path: pool2d_cpu.cpp)
  registrar.add(exec::vulkan::registerPoolVulkanKernels);
  registrar.add(exec::registerLossCpuKernels);  // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
  registrar.add(exec::registerNormExtraCpuKernels);  // RMS, Lp, MeanVariance, Group normalization, LRN
  registrar.add(exec::registerAttentionCpuKernels);  // Attention
  registrar.add(exec::registerRotaryEmbeddingCpuKernels);  // RotaryEmbedding
  registrar.add(exec::registerCol2ImCpuKernels);  // Col2Im
  registrar.add(exec::registerMaxUnpoolCpuKernels);  // MaxUnpool
  registrar.add(exec::registerGridSampleCpuKernels);  // GridSample, AffineGrid
  registrar.add(exec::registerRecurrentMixerCpuKernels);  // LinearAttention, CausalConvWithState
  registrar.add(exec::registerResizeCpuKernels);  // Resize, Upsample (geometry: resize_plan.cpp)
  registrar.add(exec::registerResizeFastCpuKernels);  // Resize, Upsample float32 over the last two axes
  registrar.add(exec::registerCenterCropPadCpuKernels);  // CenterCropPad
  registrar.add(exec::registerDropoutCpuKernels);  // Dropout
  registrar.add(exec::registerSpaceDepthCpuKernels);  // DepthToSpace, SpaceToDepth
  registrar.add(exec::vulkan::registerResizeVulkanKernels);  // Resize
}

}  // namespace onyx::ops::nn
