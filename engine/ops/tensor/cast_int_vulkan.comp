#version 450
// Cast from int32 or int64 to float (float16 in the float16 build). An int64 is two words, low first; its
// value is hi * 2^32 + lo, rounded twice (exact for the masks and ids models cast).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int WORDS = 2;
layout(std430, binding = 0) readonly buffer X { uint x[]; };
layout(std430, binding = 1) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  float v = WORDS == 2 ? float(int(x[2 * i + 1])) * 4294967296.0 + float(x[2 * i]) : float(int(x[i]));
  y[i] = SCALAR(v);
}
