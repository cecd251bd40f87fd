// The tensor family: creation, shape, reshaping, slicing and data movement. Its one registration function:
// the schema table, then each op's CPU kernels (reference before its fast variants: among kernels of equal
// priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerTensorSchemas(OpRegistry& registry);  // tensor_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerShapeCpuKernels(KernelRegistry& registry);  // shape_cpu.cpp
void registerTransposeCpuKernels(KernelRegistry& registry);  // transpose_cpu.cpp
void registerTransposeTiledCpuKernels(KernelRegistry& registry);  // transpose_tiled_cpu.cpp
void registerConcatSplitCpuKernels(KernelRegistry& registry);  // concat_split_cpu.cpp
void registerConcatChannelsCpuKernels(KernelRegistry& registry);  // concat_channels_cpu.cpp
void registerSliceCpuKernels(KernelRegistry& registry);  // slice_cpu.cpp
void registerSliceViewCpuKernels(KernelRegistry& registry);  // slice_view_cpu.cpp
void registerGatherCpuKernels(KernelRegistry& registry);  // gather_cpu.cpp
void registerTileCpuKernels(KernelRegistry& registry);  // tile_cpu.cpp
void registerPadCpuKernels(KernelRegistry& registry);  // pad_cpu.cpp
void registerTriluCpuKernels(KernelRegistry& registry);  // trilu_cpu.cpp
void registerScatterCpuKernels(KernelRegistry& registry);  // scatter_cpu.cpp
void registerScatterElementsFastCpuKernels(KernelRegistry& registry);  // scatter_elements_fast_cpu.cpp
void registerBitCastCpuKernels(KernelRegistry& registry);  // bitcast_cpu.cpp
void registerReverseSequenceCpuKernels(KernelRegistry& registry);  // reverse_sequence_cpu.cpp
void registerUniqueCpuKernels(KernelRegistry& registry);  // unique_cpu.cpp
void registerTensorScatterCpuKernels(KernelRegistry& registry);  // tensor_scatter_cpu.cpp
void registerEyeLikeOneHotCpuKernels(KernelRegistry& registry);  // eye_like_one_hot_cpu.cpp
void registerCompressCpuKernels(KernelRegistry& registry);  // compress_cpu.cpp
void registerNonZeroCpuKernels(KernelRegistry& registry);  // nonzero_cpu.cpp
}  // namespace onyx::exec

namespace onyx::exec::vulkan {
void registerMovementVulkanKernels(VulkanKernelRegistry& registry);  // movement_vulkan.cpp
}  // namespace onyx::exec::vulkan

namespace onyx::ops::tensor {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerTensorSchemas);
  registrar.add(exec::registerShapeCpuKernels);  // Constant, Identity, Shape, Reshape, Squeeze...
  registrar.add(exec::registerTransposeCpuKernels);  // Transpose reference
  registrar.add(exec::registerTransposeTiledCpuKernels);  // Transpose by tiles
  registrar.add(exec::registerConcatSplitCpuKernels);  // Concat, Split reference
  registrar.add(exec::registerConcatChannelsCpuKernels);  // Concat along channels
  registrar.add(exec::registerSliceCpuKernels);  // Slice reference
  registrar.add(exec::registerSliceViewCpuKernels);  // Slice as a view
  registrar.add(exec::registerGatherCpuKernels);  // Gather, GatherElements, GatherND
  registrar.add(exec::registerTileCpuKernels);  // Tile
  registrar.add(exec::registerPadCpuKernels);  // Pad
  registrar.add(exec::registerTriluCpuKernels);  // Trilu
  registrar.add(exec::registerScatterCpuKernels);  // ScatterND, ScatterElements, Scatter
  registrar.add(exec::registerScatterElementsFastCpuKernels);  // ScatterElements, Scatter numeric
  registrar.add(exec::vulkan::registerMovementVulkanKernels);
  registrar.add(exec::registerBitCastCpuKernels);  // BitCast
  registrar.add(exec::registerReverseSequenceCpuKernels);  // ReverseSequence
  registrar.add(exec::registerUniqueCpuKernels);  // Unique
  registrar.add(exec::registerTensorScatterCpuKernels);  // TensorScatter
  registrar.add(exec::registerEyeLikeOneHotCpuKernels);  // EyeLike, OneHot
  registrar.add(exec::registerCompressCpuKernels);  // Compress
  registrar.add(exec::registerNonZeroCpuKernels);  // NonZero
}

}  // namespace onyx::ops::tensor
