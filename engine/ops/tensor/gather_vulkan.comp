#version 450
// Gather: y[outer, j, inner] = x[outer, index[j], inner]; indices arrive normalized (never negative), as int32
// or as int64 (INDEX_WORDS 2: the low word of each, which holds the whole value since it is below AXIS_LEN).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int INDEX_WORDS = 1;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer I { int index[]; };
layout(std430, binding = 2) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define AXIS_LEN p[1]
#define INDEX_COUNT p[2]
#define INNER p[3]

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  uint inner = o % uint(INNER);
  uint j = (o / uint(INNER)) % uint(INDEX_COUNT);
  uint outer = o / uint(INNER * INDEX_COUNT);
  y[o] = x[(outer * uint(AXIS_LEN) + uint(index[INDEX_WORDS * j])) * uint(INNER) + inner];
}
