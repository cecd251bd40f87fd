#version 450
// Resize over the last two dims (the leading dims are kept): each output sums up to 4 x 4 taps whose source
// indices and weights the host computed (resize_plan.h), so every mode and coordinate transformation the
// CPU kernel handles without extrapolation gives the same value here.
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer Taps { int taps[]; };
layout(std430, binding = 2) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define OUT_H p[1]
#define OUT_W p[2]
#define IN_H p[3]
#define IN_W p[4]
#define W_TABLE p[5]
// taps[]: per output row, 4 (index, weight bits) pairs; then from W_TABLE the same per output column.
const int kTaps = 4;

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  int ow = int(o % uint(OUT_W));
  int oh = int((o / uint(OUT_W)) % uint(OUT_H));
  uint plane = o / uint(OUT_W * OUT_H);
  uint base = plane * uint(IN_H * IN_W);
  float sum = 0.0;
  for (int a = 0; a < kTaps; ++a) {
    int hAt = (oh * kTaps + a) * 2;
    float wh = intBitsToFloat(taps[hAt + 1]);
    if (wh == 0.0) continue;
    uint row = base + uint(taps[hAt] * IN_W);
    for (int b = 0; b < kTaps; ++b) {
      int wAt = W_TABLE + (ow * kTaps + b) * 2;
      float ww = intBitsToFloat(taps[wAt + 1]);
      if (ww != 0.0) sum += wh * ww * float(x[row + uint(taps[wAt])]);
    }
  }
  y[o] = SCALAR(sum);
}
