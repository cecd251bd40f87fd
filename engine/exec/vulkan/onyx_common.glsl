// Shared by every compute shader (included through glslc -I engine/exec/vulkan).
// SCALAR is the storage type of float tensors: float, or float16_t in the -DONYX_F16 build (computation is
// always float). Push constants are 32 ints; each shader names its fields with #defines.
#extension GL_EXT_shader_16bit_storage : enable
#ifdef ONYX_F16
#define SCALAR float16_t
#else
#define SCALAR float
#endif

layout(push_constant) uniform Push { int p[32]; };
#define PF(i) intBitsToFloat(p[i])

const uint kGroupSize = 256;

// Linear invocation index over a 2-D grid of groups: devices cap each dimension (lavapipe at 65,535).
uint linearIndex() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * kGroupSize + gl_LocalInvocationIndex;
}

#define kNaN uintBitsToFloat(0x7fc00000u)
#define kInf uintBitsToFloat(0x7f800000u)
