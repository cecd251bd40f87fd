#version 450
// Depthwise convolution (one input channel per group, one output channel each): each thread computes four
// horizontally adjacent outputs of one channel, with the window size a specialization constant so the
// window loops unroll and the channel's weights stay in registers. Bias and the fused epilogue
// (conv_epilogue.glsl) are applied before the store. 1-D convolutions run with H = 1.
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer W { SCALAR w[]; };
layout(std430, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
layout(std430, binding = 4) readonly buffer Residual { SCALAR residual[]; };
layout(constant_id = 0) const int KH = 3;
layout(constant_id = 1) const int KW = 3;
layout(constant_id = 2) const int EPILOGUE_0 = 0;
layout(constant_id = 3) const int EPILOGUE_1 = 0;
layout(constant_id = 4) const int EPILOGUE_2 = 0;
#define COUNT p[0]  // N * C * OH * ceil(OW / 4)
#define C p[1]
#define H p[2]
#define WIDTH p[3]
#define OH p[5]
#define OW p[6]
#define SH p[9]
#define SW p[10]
#define PT p[11]
#define PL p[12]
#define DH p[13]
#define DW p[14]
#define HAS_BIAS p[16]

#include "conv_epilogue.glsl"

void main() {
  uint o = linearIndex();
  if (o >= uint(COUNT)) return;
  int quads = (OW + 3) / 4;
  int ox0 = int(o % uint(quads)) * 4;
  int oy = int((o / uint(quads)) % uint(OH));
  int plane = int(o / uint(quads * OH));  // image * C + channel
  int channel = plane % C;
  float weights[KH * KW];
  for (int i = 0; i < KH * KW; ++i) weights[i] = float(w[channel * KH * KW + i]);
  float b = HAS_BIAS != 0 ? float(bias[channel]) : 0.0;
  vec4 acc = vec4(b);
  int xPlane = plane * H * WIDTH;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * SH - PT + ky * DH;
    if (iy < 0 || iy >= H) continue;
    int row = xPlane + iy * WIDTH;
    for (int kx = 0; kx < KW; ++kx) {
      float weight = weights[ky * KW + kx];
      for (int j = 0; j < 4; ++j) {
        int ix = (ox0 + j) * SW - PL + kx * DW;
        if (ix >= 0 && ix < WIDTH) acc[j] += float(x[row + ix]) * weight;
      }
    }
  }
  int base = (plane * OH + oy) * OW;
  for (int j = 0; j < 4 && ox0 + j < OW; ++j) {
    int at = base + ox0 + j;
    y[at] = SCALAR(applyEpilogue(acc[j], readsResidual() ? float(residual[at]) : 0.0));
  }
}
