#version 450
// im2col for GEMM convolution of one image: col[g][ic, ky, kx][oy, ox] = x[n, g*cg + ic, iy, ix] (0 in padding).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) writeonly buffer Col { SCALAR col[]; };
#define COUNT p[0]
#define C p[1]
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
#define X_BASE p[17]

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  int ox = int(o % uint(OW));
  int oy = int((o / uint(OW)) % uint(OH));
  int k = int(o / uint(OW * OH));  // (channel across all groups, ky, kx)
  int kx = k % KW, ky = (k / KW) % KH, c = k / (KW * KH);
  int iy = oy * SH - PT + ky * DH, ix = ox * SW - PL + kx * DW;
  bool inside = iy >= 0 && iy < H && ix >= 0 && ix < WIDTH;
  col[o] = inside ? x[X_BASE + (c * H + iy) * WIDTH + ix] : SCALAR(0.0);
}
