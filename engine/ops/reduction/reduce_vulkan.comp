#version 450
// Reductions over any set of axes: one thread per output element walks the reduced elements through their
// own dims and strides (kept and reduced dims each merged to at most 6).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
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

uint reducedOffset(uint r) {
  uint offset = 0;
  for (int d = RED_RANK - 1; d >= 0; --d) {
    offset += (r % uint(RED_DIM(d))) * uint(RED_STRIDE(d));
    r /= uint(RED_DIM(d));
  }
  return offset;
}

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  uint rest = o, base = 0;
  for (int d = KEPT_RANK - 1; d >= 0; --d) {
    base += (rest % uint(KEPT_DIM(d))) * uint(KEPT_STRIDE(d));
    rest /= uint(KEPT_DIM(d));
  }
  float acc = OP == 2 ? -kInf : (OP == 3 ? kInf : (OP == 4 ? 1.0 : 0.0));
  float top = -kInf;
  if (OP == 9)
    for (uint r = 0; r < uint(RED_COUNT); ++r) top = max(top, float(x[base + reducedOffset(r)]));
  for (uint r = 0; r < uint(RED_COUNT); ++r) {
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
  if (OP == 1) acc = RED_COUNT > 0 ? acc / float(RED_COUNT) : kNaN;
  if (OP == 6) acc = sqrt(acc);
  if (OP == 8) acc = log(acc);
  if (OP == 9) acc = RED_COUNT > 0 ? top + log(acc) : -kInf;
  y[o] = SCALAR(acc);
}
