#version 450
// Normalizations. MODE 0 BatchNormalization (inference statistics, one thread per element); MODE 1
// LayerNormalization (one thread per row over the trailing axes); MODE 2 InstanceNormalization (one thread per
// (n, c) plane); MODE 3 Softmax, MODE 4 LogSoftmax (one thread per (outer, inner) row along the axis).
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
#define HAS_BIAS p[5]
#define SCALE_STRIDE p[6]
#define BIAS_STRIDE p[7]

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
    return;
  }
  uint base = i * uint(LEN);
  float sum = 0.0;
  for (int j = 0; j < LEN; ++j) sum += float(x[base + j]);
  float mu = sum / float(LEN);
  float sq = 0.0;
  for (int j = 0; j < LEN; ++j) {
    float d = float(x[base + j]) - mu;
    sq += d * d;
  }
  float inv = 1.0 / sqrt(sq / float(LEN) + EPS);
  if (MODE == 1) {
    for (int j = 0; j < LEN; ++j) {
      float v = (float(x[base + j]) - mu) * inv * float(scale[j * SCALE_STRIDE]);
      if (HAS_BIAS != 0) v += float(bias[j * BIAS_STRIDE]);
      y[base + j] = SCALAR(v);
    }
  } else {
    int c = int(i % uint(CHANNELS));
    float s = float(scale[c]), b = float(bias[c]);
    for (int j = 0; j < LEN; ++j) y[base + j] = SCALAR((float(x[base + j]) - mu) * inv * s + b);
  }
}
