#version 450
// Element-wise unary ops and activations: y = f(x), with up to two float parameters (alpha, beta).
#include "onyx_common.glsl"
#include "onyx_math.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
layout(std430, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, binding = 1) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define ALPHA PF(1)
#define BETA PF(2)


// log(1 + x) without losing x when it is tiny (Goldberg's trick: the rounding of 1 + x cancels out).
float log1pAccurate(float x) {
  float u = 1.0 + x;
  return u == 1.0 ? x : log(u) * x / (u - 1.0);
}

float softplus(float v) { return max(v, 0.0) + log1pAccurate(exp(-abs(v))); }

float apply(float v) {
  switch (OP) {
    case 0: return v;
    case 1: return max(v, 0.0);
    case 2: return v < 0.0 ? ALPHA * v : v;
    case 3: return v < 0.0 ? ALPHA * (exp(v) - 1.0) : v;
    case 4: return v <= 0.0 ? BETA * ALPHA * (exp(v) - 1.0) : BETA * v;
    case 5: return v >= 0.0 ? 1.0 / (1.0 + exp(-v)) : exp(v) / (1.0 + exp(v));
    case 6: return clamp(ALPHA * v + BETA, 0.0, 1.0);
    case 7: return v * clamp(v / 6.0 + 0.5, 0.0, 1.0);
    case 8: return softplus(v);
    case 9: return v / (1.0 + abs(v));
    case 10: return tanhAccurate(v);
    case 11:
      if (ALPHA != 0.0) return 0.5 * v * (1.0 + tanhAccurate(0.7978845608 * (v + 0.044715 * v * v * v)));
      return 0.5 * v * (1.0 + erfApprox(v * 0.7071067812));
    case 12: return erfApprox(v);
    case 13: return exp(v);
    case 14: return v < 0.0 ? kNaN : (v == 0.0 ? -kInf : log(v));
    case 15: return abs(v);
    case 16: return -v;
    case 17: return v < 0.0 ? kNaN : sqrt(v);
    case 18: return 1.0 / v;
    case 19: return floor(v);
    case 20: return ceil(v);
    case 21: return roundEven(v);
    case 22: return sign(v);
    case 23: return sin(v);
    case 24: return cos(v);
    case 25: return tan(v);
    case 26: return asin(v);
    case 27: return acos(v);
    case 28: return atan(v);
    case 29: return sinh(v);
    case 30: return cosh(v);
    case 31: return asinh(v);
    case 32: return acosh(v);
    case 33: return atanh(v);
    case 34: return min(max(v, ALPHA), BETA);
    case 35: return v * tanhAccurate(softplus(v));
    case 36: return v > ALPHA ? v : 0.0;
    case 37: return max(0.0, v) + min(0.0, ALPHA * (exp(v / ALPHA) - 1.0));
    case 38: return v < -ALPHA ? v + BETA : (v > ALPHA ? v - BETA : 0.0);
    case 39: return v * ALPHA;
  }
  return v;
}

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  float v = float(x[i]);
  y[i] = SCALAR(isnan(v) && OP != 0 ? v : apply(v));
}
