#version 450
// Batched GEMM: y[b] = alpha * A[b] x B[b] + beta * bias, register-tiled (gemm_tile.glsl). A and B are read
// through strides, so transposes, broadcast batches and convolution weights need no copy; where a matrix is
// contiguous along the loaded direction and 16-byte aligned (VEC_A, VEC_B), each thread reads a vec4.
// Serves MatMul, Gemm and pointwise Conv. MatMul's fused epilogue (a bias row through the bias strides, then up
// to three conv_epilogue.glsl stages with their parameters in push constants 25..30) runs as each output is
// stored.
#include "onyx_common.glsl"
layout(std430, binding = 0) readonly buffer A { SCALAR a[]; };
layout(std430, binding = 1) readonly buffer B { SCALAR b[]; };
layout(std430, binding = 2) readonly buffer C { SCALAR bias[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
#ifndef ONYX_F16
// The same buffers as A and B, read four floats at a time.
layout(std430, binding = 4) readonly buffer A4 { vec4 a4[]; };
layout(std430, binding = 5) readonly buffer B4 { vec4 b4[]; };
// A residual operand of the output's shape, read at the output's index (epilogue stage kEpilogueAddResidual).
layout(std430, binding = 6) readonly buffer Residual { SCALAR residual[]; };
#endif
layout(constant_id = 3) const bool VEC_A = false;
layout(constant_id = 4) const bool VEC_B = false;
layout(constant_id = 5) const int EPILOGUE_0 = 0;
layout(constant_id = 6) const int EPILOGUE_1 = 0;
layout(constant_id = 7) const int EPILOGUE_2 = 0;
#define M p[0]
#define N p[1]
#define K p[2]
#define BATCH_DIM(d) p[3 + (d)]
#define A_BATCH(d) p[6 + (d)]
#define B_BATCH(d) p[9 + (d)]
#define A_M p[12]
#define A_K p[13]
#define B_K p[14]
#define B_N p[15]
#define HAS_BIAS p[16]
#define BIAS_M p[17]
#define BIAS_N p[18]
#define ALPHA PF(19)
#define BETA PF(20)
#define A_BASE p[21]
#define B_BASE p[22]
#define Y_BASE p[23]
#define BIAS_BATCH p[24]
#define EPILOGUE_PARAMS 25

#include "../nn/conv_epilogue.glsl"

#include "gemm_tile.glsl"

int aOff, bOff;

float elementA(int row, int k) { return row < M && k < K ? float(a[aOff + row * A_M + k * A_K]) : 0.0; }
float elementB(int k, int col) { return k < K && col < N ? float(b[bOff + k * B_K + col * B_N]) : 0.0; }

#include "gemm_tile_loads.glsl"

void storeY(int row, int col, vec4 v) {
  if (row >= M) return;
  int batch = int(gl_WorkGroupID.z) / SPLIT_K;
  if (SPLIT_K > 1) {  // raw sums into part `part` of the scratch
    int part = int(gl_WorkGroupID.z) % SPLIT_K;
    int outputs = int(gl_NumWorkGroups.z) / SPLIT_K * M * N;
    for (int j = 0; j < 4 && col + j < N; ++j) y[part * outputs + (batch * M + row) * N + col + j] = SCALAR(v[j]);
    return;
  }
  for (int j = 0; j < 4; ++j) {
    if (col + j >= N) return;
    float r = ALPHA * v[j];
    if (HAS_BIAS != 0) r += BETA * float(bias[batch * BIAS_BATCH + row * BIAS_M + (col + j) * BIAS_N]);
    int at = Y_BASE + (batch * M + row) * N + col + j;
#ifndef ONYX_F16
    if (EPILOGUE_0 != kEpilogueNone) r = applyEpilogue(r, readsResidual() ? float(residual[at]) : 0.0);
#endif
    y[at] = SCALAR(r);
  }
}

void main() {
  int rest = int(gl_WorkGroupID.z) / SPLIT_K;
  aOff = A_BASE;
  bOff = B_BASE;
  for (int d = 2; d >= 0; --d) {
    int c = rest % BATCH_DIM(d);
    rest /= BATCH_DIM(d);
    aOff += c * A_BATCH(d);
    bOff += c * B_BATCH(d);
  }
  ivec2 range = splitRange(K);
  gemmTile(int(gl_WorkGroupID.y) * BM, int(gl_WorkGroupID.x) * BN, range.x, range.y);
}
