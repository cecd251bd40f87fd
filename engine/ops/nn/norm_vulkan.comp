#version 450
// Normalizations by one thread per element or row. MODE 0 BatchNormalization (inference statistics, one
// thread per element); MODE 3 Softmax, MODE 4 LogSoftmax along a strided axis (one thread per (outer, inner)
// row; neighbouring threads read neighbouring elements). LayerNormalization, InstanceNormalization and a
// Softmax along the last axis run one workgroup per row (norm_rows.glsl).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MODE = 0;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) readonly buffer Scale { SCALAR scale[]; };
layout(std430, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, binding = 3) readonly buffer Mean { SCALAR mean[]; };
layout(std430, binding = 4) readonly buffer Var { SCALAR var[]; };
layout(std430, binding = 5) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define LEN p[1]
#define EPS PF(2)
#define CHANNELS p[3]
#define INNER p[4]

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  if (MODE == 0) {
    int c = int((i / uint(INNER)) % uint(CHANNELS));
    float v = (float(x[i]) - float(mean[c])) / sqrt(float(var[c]) + EPS);
    y[i] = SCALAR(v * float(scale[c]) + float(bias[c]));
    return;
  }
  if (MODE == 3 || MODE == 4) {
    uint inner = i % uint(INNER), outer = i / uint(INNER);
    uint base = outer * uint(LEN) * uint(INNER) + inner;
    float top = -kInf;
    for (int j = 0; j < LEN; ++j) top = max(top, float(x[base + j * INNER]));
    float sum = 0.0;
    for (int j = 0; j < LEN; ++j) sum += exp(float(x[base + j * INNER]) - top);
    for (int j = 0; j < LEN; ++j) {
      float v = float(x[base + j * INNER]) - top;
      y[base + j * INNER] = SCALAR(MODE == 3 ? exp(v) / sum : v - log(sum));
    }
  }
}
