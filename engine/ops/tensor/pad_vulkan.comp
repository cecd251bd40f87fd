#version 450
// Pad: each output element reads its source element (constant, edge, reflect or wrap outside the input).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MODE = 0;  // 0 constant, 1 edge, 2 reflect, 3 wrap
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define RANK p[1]
#define VALUE PF(2)
#define OUT_DIM(d) p[3 + (d)]
#define IN_DIM(d) p[9 + (d)]
#define BEFORE(d) p[15 + (d)]

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  uint rest = o;
  int offset = 0, stride = 1;
  bool outside = false;
  for (int d = RANK - 1; d >= 0; --d) {
    int i = int(rest % uint(OUT_DIM(d))) - BEFORE(d);
    rest /= uint(OUT_DIM(d));
    int n = IN_DIM(d);
    if (i < 0 || i >= n) {
      if (MODE == 0 || n == 0) {
        outside = true;
      } else if (MODE == 1) {
        i = clamp(i, 0, n - 1);
      } else if (MODE == 2) {
        int period = max(2 * (n - 1), 1);
        i = ((i % period) + period) % period;
        if (i >= n) i = period - i;
      } else {
        i = ((i % n) + n) % n;
      }
    }
    offset += i * stride;
    stride *= n;
  }
  y[o] = outside ? SCALAR(VALUE) : x[offset];
}
