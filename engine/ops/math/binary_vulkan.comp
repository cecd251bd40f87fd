#version 450
// Element-wise binary ops with numpy broadcasting: the output index is split over up to 8 dims and each
// input reads through its own strides (0 on broadcast dims).
#include "onyx_common.glsl"
#include "onyx_math.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
layout(std430, binding = 0) readonly buffer A { SCALAR a[]; };
layout(std430, binding = 1) readonly buffer B { SCALAR b[]; };
layout(std430, binding = 2) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define RANK p[1]
// Up to 8 dims: ONNX models broadcast past 6 more often than one would think (rank-7 attention masks).
#define DIM(d) p[2 + (d)]
#define STRIDE_A(d) p[10 + (d)]
#define STRIDE_B(d) p[18 + (d)]


float apply(float u, float v) {
  switch (OP) {
    case 0: return u + v;
    case 1: return u - v;
    case 2: return u * v;
    case 3: return u / v;
    case 4: return power(u, v);
    case 5: return isnan(u) || isnan(v) ? kNaN : max(u, v);
    case 6: return isnan(u) || isnan(v) ? kNaN : min(u, v);
    case 7: return u < 0.0 ? u * v : u;
    case 8: return u - v * trunc(u / v);
  }
  return u;
}

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  uint rest = i, ia = 0, ib = 0;
  for (int d = RANK - 1; d >= 0; --d) {
    uint c = rest % uint(DIM(d));
    rest /= uint(DIM(d));
    ia += c * uint(STRIDE_A(d));
    ib += c * uint(STRIDE_B(d));
  }
  y[i] = SCALAR(apply(float(a[ia]), float(b[ib])));
}
