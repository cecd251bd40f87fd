#version 450
// Batched GEMM: y[b] = alpha * A[b] x B[b] + beta * bias, tiled 32 x 32 per group of 16 x 16 threads (2 x 2
// outputs each), 16-deep K slices staged in shared memory. A and B are read through strides, so transposes,
// broadcast batches and convolution weights need no copy. Serves MatMul, Gemm and Conv (after im2col).
#include "onyx_common.glsl"
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer A { SCALAR a[]; };
layout(std430, binding = 1) readonly buffer B { SCALAR b[]; };
layout(std430, binding = 2) readonly buffer C { SCALAR bias[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
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

const int TILE = 32, DEPTH = 16;
shared float tileA[DEPTH][TILE + 1];
shared float tileB[DEPTH][TILE + 1];

void main() {
  int batch = int(gl_WorkGroupID.z);
  int aOff = A_BASE, bOff = B_BASE, rest = batch;
  for (int d = 2; d >= 0; --d) {
    int c = rest % BATCH_DIM(d);
    rest /= BATCH_DIM(d);
    aOff += c * A_BATCH(d);
    bOff += c * B_BATCH(d);
  }
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int row0 = int(gl_WorkGroupID.y) * TILE, col0 = int(gl_WorkGroupID.x) * TILE;
  int thread = ty * 16 + tx;
  float acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
  for (int k0 = 0; k0 < K; k0 += DEPTH) {
    // 512 elements of each tile, two per thread.
    for (int e = thread; e < DEPTH * TILE; e += 256) {
      int kk = e / TILE, mm = e % TILE;
      int row = row0 + mm, k = k0 + kk;
      tileA[kk][mm] = (row < M && k < K) ? float(a[aOff + row * A_M + k * A_K]) : 0.0;
      int col = col0 + mm;
      tileB[kk][mm] = (col < N && k < K) ? float(b[bOff + k * B_K + col * B_N]) : 0.0;
    }
    barrier();
    for (int kk = 0; kk < DEPTH; ++kk) {
      float a0 = tileA[kk][ty], a1 = tileA[kk][ty + 16];
      float b0 = tileB[kk][tx], b1 = tileB[kk][tx + 16];
      acc[0][0] += a0 * b0;
      acc[0][1] += a0 * b1;
      acc[1][0] += a1 * b0;
      acc[1][1] += a1 * b1;
    }
    barrier();
  }
  for (int i = 0; i < 2; ++i) {
    int row = row0 + ty + 16 * i;
    if (row >= M) continue;
    for (int j = 0; j < 2; ++j) {
      int col = col0 + tx + 16 * j;
      if (col >= N) continue;
      float v = ALPHA * acc[i][j];
      if (HAS_BIAS != 0) v += BETA * float(bias[batch * BIAS_BATCH + row * BIAS_M + col * BIAS_N]);
      y[Y_BASE + (batch * M + row) * N + col] = SCALAR(v);
    }
  }
}
