// LayerNormalization, InstanceNormalization, Softmax and LogSoftmax with one workgroup per row (the shaders
// norm_rows_vulkan.comp and norm_rows_subgroup_vulkan.comp include this): the group's threads stride over the
// row, and the mean, variance, maximum and sum are workgroup reductions (group_reduce.glsl). MODE 1 LayerNorm
// (rows of LEN contiguous elements, scale and bias per element or scalar), 2 InstanceNorm (one row per
// (n, c) plane), 3 Softmax, 4 LogSoftmax (along a contiguous last axis).
#include "onyx_common.glsl"
layout(local_size_x_id = 1) in;
layout(constant_id = 0) const int MODE = 1;
layout(constant_id = 1) const int GROUP_SIZE = 256;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer Scale { SCALAR scale[]; };
layout(std430, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, binding = 3) writeonly buffer Y { SCALAR y[]; };
#define ROWS p[0]
#define LEN p[1]
#define EPS PF(2)
#define CHANNELS p[3]
#define HAS_BIAS p[5]
#define SCALE_STRIDE p[6]
#define BIAS_STRIDE p[7]

#include "../reduction/group_reduce.glsl"

void main() {
  uint row = groupRow();
  if (row >= uint(ROWS)) return;  // uniform across the group: no thread reaches a barrier alone
  int t = int(gl_LocalInvocationIndex);
  uint base = row * uint(LEN);
  if (MODE == 3 || MODE == 4) {
    float top = -kInf;
    for (int j = t; j < LEN; j += GROUP_SIZE) top = max(top, float(x[base + j]));
    top = groupReduce(kReduceMax, top);
    float sum = 0.0;
    for (int j = t; j < LEN; j += GROUP_SIZE) sum += exp(float(x[base + j]) - top);
    sum = groupReduce(kReduceSum, sum);
    for (int j = t; j < LEN; j += GROUP_SIZE) {
      float v = float(x[base + j]) - top;
      y[base + j] = SCALAR(MODE == 3 ? exp(v) / sum : v - log(sum));
    }
    return;
  }
  float sum = 0.0;
  for (int j = t; j < LEN; j += GROUP_SIZE) sum += float(x[base + j]);
  float mu = groupReduce(kReduceSum, sum) / float(LEN);
  float sq = 0.0;
  for (int j = t; j < LEN; j += GROUP_SIZE) {
    float d = float(x[base + j]) - mu;
    sq += d * d;
  }
  float inv = 1.0 / sqrt(groupReduce(kReduceSum, sq) / float(LEN) + EPS);
  if (MODE == 1) {
    for (int j = t; j < LEN; j += GROUP_SIZE) {
      float v = (float(x[base + j]) - mu) * inv * float(scale[j * SCALE_STRIDE]);
      if (HAS_BIAS != 0) v += float(bias[j * BIAS_STRIDE]);
      y[base + j] = SCALAR(v);
    }
  } else {
    int c = int(row % uint(CHANNELS));
    float s = float(scale[c]), b = float(bias[c]);
    for (int j = t; j < LEN; j += GROUP_SIZE) y[base + j] = SCALAR((float(x[base + j]) - mu) * inv * s + b);
  }
}
