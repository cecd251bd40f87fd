// The one list of CPU kernel groups. Each group lives beside its op family (engine/ops/<family>/
// <group>_cpu.cpp) and defines the function declared here; adding a group is one declaration and one call.
#include "exec/kernel.h"

namespace onyx::exec {

void registerActivationCpuKernels(KernelRegistry& registry);
void registerBinaryCpuKernels(KernelRegistry& registry);
void registerUnaryCpuKernels(KernelRegistry& registry);
void registerShapeCpuKernels(KernelRegistry& registry);
void registerMovementCpuKernels(KernelRegistry& registry);
void registerTransposeTiledCpuKernels(KernelRegistry& registry);
void registerConcatChannelsCpuKernels(KernelRegistry& registry);
void registerSliceViewCpuKernels(KernelRegistry& registry);
void registerCompareCpuKernels(KernelRegistry& registry);
void registerReduceCpuKernels(KernelRegistry& registry);
void registerNormCpuKernels(KernelRegistry& registry);
void registerSoftmaxFastCpuKernels(KernelRegistry& registry);
void registerLayerNormFastCpuKernels(KernelRegistry& registry);
void registerConvCpuKernels(KernelRegistry& registry);
void registerPoolCpuKernels(KernelRegistry& registry);
void registerMatmulCpuKernels(KernelRegistry& registry);
void registerDnnlCpuKernels(KernelRegistry& registry);
void registerRnnCpuKernels(KernelRegistry& registry);
void registerRnnGemmCpuKernels(KernelRegistry& registry);
void registerSelectCpuKernels(KernelRegistry& registry);
void registerNmsCpuKernels(KernelRegistry& registry);
void registerResizeCpuKernels(KernelRegistry& registry);
void registerControlCpuKernels(KernelRegistry& registry);
void registerSequenceCpuKernels(KernelRegistry& registry);
void registerMiscCpuKernels(KernelRegistry& registry);
void registerLossCpuKernels(KernelRegistry& registry);
void registerNormExtraCpuKernels(KernelRegistry& registry);
void registerBitCastCpuKernels(KernelRegistry& registry);
void registerQLinearCpuKernels(KernelRegistry& registry);
void registerQConvCpuKernels(KernelRegistry& registry);
void registerAttentionCpuKernels(KernelRegistry& registry);
void registerEinsumCpuKernels(KernelRegistry& registry);
void registerRotaryEmbeddingCpuKernels(KernelRegistry& registry);
void registerSwiGluCpuKernels(KernelRegistry& registry);
void registerLinalgCpuKernels(KernelRegistry& registry);
void registerReverseSequenceCpuKernels(KernelRegistry& registry);
void registerCenterCropPadCpuKernels(KernelRegistry& registry);
void registerCol2ImCpuKernels(KernelRegistry& registry);
void registerMaxUnpoolCpuKernels(KernelRegistry& registry);
void registerStringCpuKernels(KernelRegistry& registry);
void registerTfIdfVectorizerCpuKernels(KernelRegistry& registry);
void registerUniqueCpuKernels(KernelRegistry& registry);
void registerSignalCpuKernels(KernelRegistry& registry);
void registerGridSampleCpuKernels(KernelRegistry& registry);
void registerRoiAlignCpuKernels(KernelRegistry& registry);
void registerMatMulIntegerCpuKernels(KernelRegistry& registry);
void registerSequenceMapCpuKernels(KernelRegistry& registry);
void registerRecurrentMixerCpuKernels(KernelRegistry& registry);
void registerTensorScatterCpuKernels(KernelRegistry& registry);
void registerTrainingCpuKernels(KernelRegistry& registry);
void registerGradientCpuKernels(KernelRegistry& registry);
void registerMlCpuKernels(KernelRegistry& registry);

void registerCpuKernels(KernelRegistry& registry) {
  registerActivationCpuKernels(registry);
  registerBinaryCpuKernels(registry);
  registerUnaryCpuKernels(registry);
  registerShapeCpuKernels(registry);
  registerMovementCpuKernels(registry);
  registerTransposeTiledCpuKernels(registry);
  registerConcatChannelsCpuKernels(registry);
  registerSliceViewCpuKernels(registry);
  registerCompareCpuKernels(registry);
  registerReduceCpuKernels(registry);
  registerNormCpuKernels(registry);
  registerSoftmaxFastCpuKernels(registry);
  registerLayerNormFastCpuKernels(registry);
  registerConvCpuKernels(registry);
  registerPoolCpuKernels(registry);
  registerMatmulCpuKernels(registry);
  registerDnnlCpuKernels(registry);
  registerRnnCpuKernels(registry);
  registerRnnGemmCpuKernels(registry);
  registerSelectCpuKernels(registry);
  registerNmsCpuKernels(registry);
  registerResizeCpuKernels(registry);
  registerControlCpuKernels(registry);
  registerSequenceCpuKernels(registry);
  registerMiscCpuKernels(registry);
  registerLossCpuKernels(registry);
  registerNormExtraCpuKernels(registry);
  registerBitCastCpuKernels(registry);
  registerQLinearCpuKernels(registry);
  registerQConvCpuKernels(registry);
  registerAttentionCpuKernels(registry);
  registerEinsumCpuKernels(registry);
  registerRotaryEmbeddingCpuKernels(registry);
  registerSwiGluCpuKernels(registry);
  registerLinalgCpuKernels(registry);
  registerReverseSequenceCpuKernels(registry);
  registerCenterCropPadCpuKernels(registry);
  registerCol2ImCpuKernels(registry);
  registerMaxUnpoolCpuKernels(registry);
  registerStringCpuKernels(registry);
  registerTfIdfVectorizerCpuKernels(registry);
  registerUniqueCpuKernels(registry);
  registerSignalCpuKernels(registry);
  registerGridSampleCpuKernels(registry);
  registerRoiAlignCpuKernels(registry);
  registerMatMulIntegerCpuKernels(registry);
  registerSequenceMapCpuKernels(registry);
  registerRecurrentMixerCpuKernels(registry);
  registerTensorScatterCpuKernels(registry);
  registerTrainingCpuKernels(registry);
  registerGradientCpuKernels(registry);
  registerMlCpuKernels(registry);
}

}  // namespace onyx::exec
