#version 450
// Strided copy: the element at index (i0..i5) of a dims-shaped block goes from x[inBase + sum(i*inStride)] to
// y[outBase + sum(i*outStride)]. Transpose, Slice, Expand, Concat and Split are all this one copy.
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define RANK p[1]
#define IN_BASE p[2]
#define OUT_BASE p[3]
#define DIM(d) p[4 + (d)]
#define IN_STRIDE(d) p[10 + (d)]
#define OUT_STRIDE(d) p[16 + (d)]

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  uint rest = i;
  int from = IN_BASE, to = OUT_BASE;
  for (int d = RANK - 1; d >= 0; --d) {
    int c = int(rest % uint(DIM(d)));
    rest /= uint(DIM(d));
    from += c * IN_STRIDE(d);
    to += c * OUT_STRIDE(d);
  }
  y[to] = x[from];
}
