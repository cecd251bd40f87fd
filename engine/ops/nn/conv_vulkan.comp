#version 450
// Direct 2-D convolution (1-D runs with H = 1), grouped and depthwise, bias fused: one thread per output.
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer W { SCALAR w[]; };
layout(std430, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define C p[1]
#define H p[2]
#define WIDTH p[3]
#define M p[4]
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
#define GROUPS p[15]
#define HAS_BIAS p[16]

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  int ox = int(o % uint(OW));
  int oy = int((o / uint(OW)) % uint(OH));
  int m = int((o / uint(OW * OH)) % uint(M));
  int n = int(o / uint(OW * OH * M));
  int cg = C / GROUPS, g = m / (M / GROUPS);
  float acc = HAS_BIAS != 0 ? float(bias[m]) : 0.0;
  for (int ic = 0; ic < cg; ++ic) {
    int xPlane = (n * C + g * cg + ic) * H * WIDTH;
    int wPlane = (m * cg + ic) * KH * KW;
    for (int ky = 0; ky < KH; ++ky) {
      int iy = oy * SH - PT + ky * DH;
      if (iy < 0 || iy >= H) continue;
      for (int kx = 0; kx < KW; ++kx) {
        int ix = ox * SW - PL + kx * DW;
        if (ix < 0 || ix >= WIDTH) continue;
        acc += float(x[xPlane + iy * WIDTH + ix]) * float(w[wPlane + ky * KW + kx]);
      }
    }
  }
  y[o] = SCALAR(acc);
}
