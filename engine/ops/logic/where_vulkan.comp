#version 450
// Where with broadcasting: y = cond ? a : b, the condition as int32 (uploaded from the host's bools).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer C { int cond[]; };
layout(std430, binding = 1) readonly buffer A { SCALAR a[]; };
layout(std430, binding = 2) readonly buffer B { SCALAR b[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define RANK p[1]
#define DIM(d) p[2 + (d)]
#define STRIDE_C(d) p[8 + (d)]
#define STRIDE_A(d) p[14 + (d)]
#define STRIDE_B(d) p[20 + (d)]

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  uint rest = i, ic = 0, ia = 0, ib = 0;
  for (int d = RANK - 1; d >= 0; --d) {
    uint c = rest % uint(DIM(d));
    rest /= uint(DIM(d));
    ic += c * uint(STRIDE_C(d));
    ia += c * uint(STRIDE_A(d));
    ib += c * uint(STRIDE_B(d));
  }
  y[i] = cond[ic] != 0 ? a[ia] : b[ib];
}
