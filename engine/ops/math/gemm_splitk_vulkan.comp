#version 450
// The second pass of a split-K GEMM (gemm_tile.glsl): adds the PARTS partial outputs of each element and
// finishes it as the one-pass kernel would. MODE 0 MatMul/Gemm: alpha * sum + beta * bias (broadcast through
// strides), then MatMul's fused epilogue; MODE 1 Conv: sum + bias[channel], then the fused epilogue (conv_epilogue.glsl).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MODE = 0;
layout(constant_id = 1) const int EPILOGUE_0 = 0;
layout(constant_id = 2) const int EPILOGUE_1 = 0;
layout(constant_id = 3) const int EPILOGUE_2 = 0;
layout(std430, binding = 0) readonly buffer Partial { SCALAR partial[]; };
layout(std430, binding = 1) readonly buffer Bias { SCALAR bias[]; };
layout(std430, binding = 2) readonly buffer Residual { SCALAR residual[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define PARTS p[1]
#define M p[2]  // rows per batch (MatMul) or channels (Conv)
#define N p[3]
#define HAS_BIAS p[4]
#define BIAS_M p[5]
#define BIAS_N p[6]
#define BIAS_BATCH p[7]
#define ALPHA PF(8)
#define BETA PF(9)

#include "../nn/conv_epilogue.glsl"

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  float sum = 0.0;
  for (int part = 0; part < PARTS; ++part) sum += float(partial[uint(part) * uint(COUNT) + i]);
  int col = int(i % uint(N)), row = int((i / uint(N)) % uint(M)), batch = int(i / uint(N * M));
  if (MODE == 0) {
    float v = ALPHA * sum;
    if (HAS_BIAS != 0) v += BETA * float(bias[batch * BIAS_BATCH + row * BIAS_M + col * BIAS_N]);
    y[i] = SCALAR(applyEpilogue(v, readsResidual() ? float(residual[i]) : 0.0));
  } else {
    float v = sum + (HAS_BIAS != 0 ? float(bias[row]) : 0.0);
    y[i] = SCALAR(applyEpilogue(v, readsResidual() ? float(residual[i]) : 0.0));
  }
}
