// Reductions across one workgroup of GROUP_SIZE threads (a specialization constant the including shader
// declares, its local_size_x). With ONYX_SUBGROUP (the *_subgroup_vulkan shaders, chosen when the device has
// subgroup arithmetic) each subgroup reduces in registers and one value per subgroup goes through shared
// memory; otherwise a shared-memory tree. Every thread gets the result, and every thread must call.
#ifdef ONYX_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

const int kReduceSum = 0, kReduceMax = 1, kReduceMin = 2, kReduceProduct = 3;
shared float reduceScratch[GROUP_SIZE];

// max and min that keep a NaN (GLSL's leave it undefined).
float combine(int op, float a, float b) {
  if (op == kReduceSum) return a + b;
  if (op == kReduceProduct) return a * b;
  if (isnan(a) || isnan(b)) return kNaN;
  return op == kReduceMax ? max(a, b) : min(a, b);
}

float groupReduce(int op, float v) {
  uint t = gl_LocalInvocationIndex;
#ifdef ONYX_SUBGROUP
  bool anyNaN = (op == kReduceMax || op == kReduceMin) && subgroupAdd(isnan(v) ? 1 : 0) > 0;
  if (op == kReduceSum) v = subgroupAdd(v);
  else if (op == kReduceProduct) v = subgroupMul(v);
  else if (op == kReduceMax) v = subgroupMax(v);
  else v = subgroupMin(v);
  if (anyNaN) v = kNaN;
  if (subgroupElect()) reduceScratch[gl_SubgroupID] = v;
  barrier();
  float total = reduceScratch[0];
  for (uint s = 1; s < gl_NumSubgroups; ++s) total = combine(op, total, reduceScratch[s]);
  barrier();
  return total;
#else
  reduceScratch[t] = v;
  barrier();
  for (uint s = uint(GROUP_SIZE) / 2; s > 0; s >>= 1) {
    if (t < s) reduceScratch[t] = combine(op, reduceScratch[t], reduceScratch[t + s]);
    barrier();
  }
  float total = reduceScratch[0];
  barrier();
  return total;
#endif
}

// The row (workgroup) this group works on, over a 2-D grid of groups (devices cap each dimension).
uint groupRow() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
