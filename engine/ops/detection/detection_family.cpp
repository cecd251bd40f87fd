// The detection family: NonMaxSuppression and RoiAlign. Its one registration function: the schema table, then
// each op's CPU kernels (reference before its fast variants: among kernels of equal priority the first
// registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerDetectionSchemas(OpRegistry& registry);  // detection_shapes.cpp
}  // namespace onyx

namespace onyx::exec {
void registerNmsCpuKernels(KernelRegistry& registry);  // nms_cpu.cpp
void registerRoiAlignCpuKernels(KernelRegistry& registry);  // roi_align_cpu.cpp
void registerRoiAlignFastCpuKernels(KernelRegistry& registry);  // roi_align_fast_cpu.cpp
}  // namespace onyx::exec

namespace onyx::ops::detection {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerDetectionSchemas);
  registrar.add(exec::registerNmsCpuKernels);  // NonMaxSuppression
  registrar.add(exec::registerRoiAlignCpuKernels);  // RoiAlign
  registrar.add(exec::registerRoiAlignFastCpuKernels);  // RoiAlign float32, samples computed once per region
}

}  // namespace onyx::ops::detection
