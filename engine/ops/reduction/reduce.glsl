// Reductions over any set of axes (reduce_vulkan.comp and reduce_subgroup_vulkan.comp include this). The
// reduced elements are walked through their own dims and strides (kept and reduced dims each merged to at most
// 6), by one thread per output element, or with PER_GROUP by a whole workgroup per output element (long
// reductions: the threads stride over them and combine through group_reduce.glsl).
#include "onyx_common.glsl"
layout(local_size_x_id = 1) in;
layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const int GROUP_SIZE = 256;
layout(constant_id = 2) const bool PER_GROUP = false;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define KEPT_RANK p[1]
#define RED_RANK p[2]
#define RED_COUNT p[3]
#define KEPT_DIM(d) p[4 + (d)]
#define KEPT_STRIDE(d) p[10 + (d)]
#define RED_DIM(d) p[16 + (d)]
#define RED_STRIDE(d) p[22 + (d)]

#include "group_reduce.glsl"

uint reducedOffset(uint r) {
  uint offset = 0;
  for (int d = RED_RANK - 1; d >= 0; --d) {
    offset += (r % uint(RED_DIM(d))) * uint(RED_STRIDE(d));
    r /= uint(RED_DIM(d));
  }
  return offset;
}

uint keptOffset(uint o) {
  uint rest = o, base = 0;
  for (int d = KEPT_RANK - 1; d >= 0; --d) {
    base += (rest % uint(KEPT_DIM(d))) * uint(KEPT_STRIDE(d));
    rest /= uint(KEPT_DIM(d));
  }
  return base;
}

// The reduced elements r = first, first + step, ... of the output at `base` folded into a partial value.
float accumulate(uint base, uint first, uint step, float top) {
  float acc = OP == 2 ? -kInf : (OP == 3 ? kInf : (OP == 4 ? 1.0 : 0.0));
  for (uint r = first; r < uint(RED_COUNT); r += step) {
    float v = float(x[base + reducedOffset(r)]);
    switch (OP) {
      case 0: case 1: case 8: acc += v; break;
      case 2: acc = isnan(v) || isnan(acc) ? kNaN : max(acc, v); break;
      case 3: acc = isnan(v) || isnan(acc) ? kNaN : min(acc, v); break;
      case 4: acc *= v; break;
      case 5: acc += abs(v); break;
      case 6: case 7: acc += v * v; break;
      case 9: acc += exp(v - top); break;
    }
  }
  return acc;
}

float finish(float acc, float top) {
  if (OP == 1) acc = RED_COUNT > 0 ? acc / float(RED_COUNT) : kNaN;
  if (OP == 6) acc = sqrt(acc);
  if (OP == 8) acc = log(acc);
  if (OP == 9) acc = RED_COUNT > 0 ? top + log(acc) : -kInf;
  return acc;
}

float largest(uint base, uint first, uint step) {
  float top = -kInf;
  for (uint r = first; r < uint(RED_COUNT); r += step) top = max(top, float(x[base + reducedOffset(r)]));
  return top;
}

void main() {
  if (PER_GROUP) {
    uint o = groupRow();
    if (o >= uint(COUNT)) return;  // uniform across the group
    uint t = gl_LocalInvocationIndex, base = keptOffset(o);
    float top = OP == 9 ? groupReduce(kReduceMax, largest(base, t, uint(GROUP_SIZE))) : 0.0;
    int combineOp = OP == 2 ? kReduceMax : (OP == 3 ? kReduceMin : (OP == 4 ? kReduceProduct : kReduceSum));
    float acc = groupReduce(combineOp, accumulate(base, t, uint(GROUP_SIZE), top));
    if (t == 0) y[o] = SCALAR(finish(acc, top));
    return;
  }
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  uint base = keptOffset(o);
  float top = OP == 9 ? largest(base, 0, 1) : 0.0;
  y[o] = SCALAR(finish(accumulate(base, 0, 1, top), top));
}
