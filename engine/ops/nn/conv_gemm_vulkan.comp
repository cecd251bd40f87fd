#version 450
// Convolution as an implicit GEMM (no im2col buffer): per image and group, Y[m, (oy, ox)] = W[m, (ic, ky, kx)]
// x X[(ic, ky, kx), (oy, ox)], where the B loader gathers X's window elements straight from the input (0 in
// the padding). Register-tiled through gemm_tile.glsl; bias and the fused epilogue (conv_epilogue.glsl) are
// applied as each output is stored. A pointwise convolution (1x1, stride 1, no padding: B is the input
// itself) reads four columns at a time where aligned. 1-D convolutions run with H = 1.
#include "onyx_common.glsl"
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer W { SCALAR w[]; };
layout(std430, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
layout(std430, binding = 4) readonly buffer Residual { SCALAR residual[]; };
#ifndef ONYX_F16
layout(std430, binding = 5) readonly buffer W4 { vec4 w4[]; };
layout(std430, binding = 6) readonly buffer X4 { vec4 x4[]; };
#endif
layout(constant_id = 3) const bool VEC_A = false;
layout(constant_id = 4) const bool VEC_B = false;
layout(constant_id = 5) const bool POINTWISE = false;
layout(constant_id = 6) const int EPILOGUE_0 = 0;
layout(constant_id = 7) const int EPILOGUE_1 = 0;
layout(constant_id = 8) const int EPILOGUE_2 = 0;
#define M p[0]  // output channels per group
#define N p[1]  // OH * OW
#define K p[2]  // input channels per group * KH * KW
#define C p[3]
#define H p[4]
#define WIDTH p[5]
#define OH p[6]
#define OW p[7]
#define KH p[8]
#define KW p[9]
#define SH p[10]
#define SW p[11]
#define PT p[12]
#define PL p[13]
#define DH p[14]
#define DW p[15]
#define GROUPS p[16]
#define HAS_BIAS p[17]
#define M_TOTAL p[18]

#include "../math/gemm_tile.glsl"
#include "conv_epilogue.glsl"

int image, group, xOff, wOff;

float elementA(int row, int k) { return row < M && k < K ? float(w[wOff + row * K + k]) : 0.0; }

vec4 loadA(int row, int k) {
#ifndef ONYX_F16
  if (VEC_A && row < M && k + 3 < K) return w4[(wOff + row * K + k) >> 2];
#endif
  return vec4(elementA(row, k), elementA(row, k + 1), elementA(row, k + 2), elementA(row, k + 3));
}

float windowElement(int plane, int ky, int kx, int col) {
  if (col >= N) return 0.0;
  int oy = col / OW, ox = col - oy * OW;
  int iy = oy * SH - PT + ky * DH, ix = ox * SW - PL + kx * DW;
  return iy >= 0 && iy < H && ix >= 0 && ix < WIDTH ? float(x[plane + iy * WIDTH + ix]) : 0.0;
}

vec4 loadB(int k, int col) {
  if (k >= K) return vec4(0.0);
  if (POINTWISE) {
    int at = xOff + k * N + col;
#ifndef ONYX_F16
    if (VEC_B && col + 3 < N) return x4[at >> 2];
#endif
    return vec4(col < N ? float(x[at]) : 0.0, col + 1 < N ? float(x[at + 1]) : 0.0,
                col + 2 < N ? float(x[at + 2]) : 0.0, col + 3 < N ? float(x[at + 3]) : 0.0);
  }
  int ic = k / (KH * KW), r = k - ic * KH * KW;
  int ky = r / KW, kx = r - ky * KW;
  int plane = xOff + ic * H * WIDTH;
  return vec4(windowElement(plane, ky, kx, col), windowElement(plane, ky, kx, col + 1),
              windowElement(plane, ky, kx, col + 2), windowElement(plane, ky, kx, col + 3));
}

void storeY(int row, int col, vec4 v) {
  if (row >= M) return;
  int channel = group * M + row;
  if (SPLIT_K > 1) {  // raw sums into part `part` of the scratch; gemm_splitk_vulkan.comp adds bias and epilogue
    int part = int(gl_WorkGroupID.z) % SPLIT_K;
    int outputs = int(gl_NumWorkGroups.z) / SPLIT_K / GROUPS * M_TOTAL * N;
    int at = part * outputs + (image * M_TOTAL + channel) * N + col;
    for (int j = 0; j < 4 && col + j < N; ++j) y[at + j] = SCALAR(v[j]);
    return;
  }
  float b = HAS_BIAS != 0 ? float(bias[channel]) : 0.0;
  int base = (image * M_TOTAL + channel) * N;
  for (int j = 0; j < 4; ++j) {
    if (col + j >= N) return;
    int at = base + col + j;
    y[at] = SCALAR(applyEpilogue(v[j] + b, readsResidual() ? float(residual[at]) : 0.0));
  }
}

void main() {
  int outer = int(gl_WorkGroupID.z) / SPLIT_K;
  image = outer / GROUPS;
  group = outer % GROUPS;
  xOff = (image * C + group * (C / GROUPS)) * H * WIDTH;
  wOff = group * M * K;
  ivec2 range = splitRange(K);
  gemmTile(int(gl_WorkGroupID.y) * BM, int(gl_WorkGroupID.x) * BN, range.x, range.y);
}
