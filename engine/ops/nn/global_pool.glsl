// GlobalAveragePool and GlobalMaxPool (global_pool_vulkan.comp, and global_pool_subgroup_vulkan.comp where the
// device has subgroup shuffles): each plane (one (n, c) pair, LEN contiguous elements) is reduced by LANES
// neighbouring threads of a 256-thread group, so a group covers 256 / LANES planes: a whole group per plane
// for large planes (efficientnet's 112x112 squeeze-excite inputs), a few threads per plane for small ones
// (7x7 heads with a thousand channels). The lanes stride over the plane together, so each load instruction
// of a subgroup reads neighbouring words. With ONYX_SUBGROUP the lanes combine by butterfly shuffles inside
// their subgroup and, for planes wider than a subgroup, once more through shared memory after one barrier;
// without, through a shared-memory tree of log2(LANES) barriers.
// Like the CPU kernel, the maximum skips NaNs and is -inf over an empty plane; the average of one is 0.
#ifdef ONYX_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MAX_POOL = 0;
layout(constant_id = 1) const int LANES = 256;  // a power of two, 1 to 256
// Whether LEN is a multiple of 4, so each plane starts on a 16-byte boundary and is read a vec4 at a time.
layout(constant_id = 2) const bool VEC4 = false;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) writeonly buffer Y { SCALAR y[]; };
#ifndef ONYX_F16
layout(std430, binding = 2) readonly buffer X4 { vec4 x4[]; };
#endif
#define PLANES p[0]
#define LEN p[1]

shared float partial[256];

// The maximum keeps the first operand unless the second is larger or the first is NaN (a vec4's lane).
float combine(float a, float b) { return MAX_POOL == 1 ? (b > a || isnan(a) ? b : a) : a + b; }

float planeValue(uint plane, uint lane) {
  float acc = MAX_POOL == 1 ? -kInf : 0.0;
  if (plane >= uint(PLANES)) return acc;  // past the last plane: still takes part in the combining below
  uint base = plane * uint(LEN);
#ifndef ONYX_F16
  if (VEC4) {
    for (uint j = lane; j < uint(LEN) / 4u; j += uint(LANES)) {
      vec4 v = x4[base / 4u + j];
      acc = combine(combine(acc, v.x), combine(v.y, combine(v.z, v.w)));
    }
    return acc;
  }
#endif
  for (uint j = lane; j < uint(LEN); j += uint(LANES)) acc = combine(acc, float(x[base + j]));
  return acc;
}

void main() {
#ifdef ONYX_SUBGROUP
  // Threads numbered subgroup by subgroup, so a plane's lanes are consecutive lanes of one subgroup (or whole
  // subgroups) whatever order the device gives subgroups their invocations in.
  uint width = gl_SubgroupSize, t = gl_SubgroupID * width + gl_SubgroupInvocationID;
#else
  uint t = gl_LocalInvocationIndex;
#endif
  uint lane = t % uint(LANES);
  uint plane = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * (256u / uint(LANES)) + t / uint(LANES);
  float acc = planeValue(plane, lane);
#ifdef ONYX_SUBGROUP
  for (uint s = min(uint(LANES), width) / 2u; s > 0u; s >>= 1) acc = combine(acc, subgroupShuffleXor(acc, s));
  if (uint(LANES) > width) {  // uniform: the plane's subgroups meet in shared memory
    if (gl_SubgroupInvocationID == 0u) partial[gl_SubgroupID] = acc;
    barrier();
    if (lane == 0u)
      for (uint i = 1u; i < uint(LANES) / width; ++i) acc = combine(acc, partial[t / width + i]);
  }
#else
  partial[t] = acc;
  barrier();
  for (uint s = uint(LANES) / 2u; s > 0u; s >>= 1) {
    if (lane < s) partial[t] = combine(partial[t], partial[t + s]);
    barrier();
  }
  acc = partial[t];
#endif
  if (lane == 0u && plane < uint(PLANES)) y[plane] = SCALAR(MAX_POOL == 1 ? acc : (LEN > 0 ? acc / float(LEN) : 0.0));
}
