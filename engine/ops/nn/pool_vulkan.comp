#version 450
// Max and average pooling over 2-D windows (1-D runs with H = 1), a thread per output.
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MAX_POOL = 1;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define H p[2]
#define WIDTH p[3]
#define OH p[5]
#define OW p[6]
#define KH p[7]
#define KW p[8]
#define SH p[9]
#define SW p[10]
#define PT p[11]
#define PL p[12]
#define DH p[13]
#define DW p[14]
#define COUNT_PAD p[15]
#define PB p[16]
#define PR p[17]

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  int ox = int(o % uint(OW));
  int oy = int((o / uint(OW)) % uint(OH));
  int plane = int(o / uint(OW * OH));
  int base = plane * H * WIDTH;
  float best = -kInf, sum = 0.0;
  int count = 0;
  bool any = false;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * SH - PT + ky * DH;
    bool rowInside = iy >= 0 && iy < H, rowPadded = iy >= -PT && iy < H + PB;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ox * SW - PL + kx * DW;
      if (!rowInside || ix < 0 || ix >= WIDTH) {
        if (COUNT_PAD != 0 && rowPadded && ix >= -PL && ix < WIDTH + PR) ++count;
        continue;
      }
      float v = float(x[base + iy * WIDTH + ix]);
      ++count;
      if (!any || v > best) best = v;
      any = true;
      sum += v;
    }
  }
  y[o] = SCALAR(MAX_POOL == 1 ? (any ? best : 0.0) : (count > 0 ? sum / float(count) : 0.0));
}
