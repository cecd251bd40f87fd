// Math shared by the element-wise shaders (unary, binary and the fused element-wise program), so an op
// computes the same value whether it runs alone or inside a fused node.
#ifndef ONYX_MATH_GLSL
#define ONYX_MATH_GLSL

float erfApprox(float v) {
  float a = abs(v);
  if (a < 0.5) {  // Taylor series: relative error stays far below float rounding near 0
    float v2 = v * v;
    return 1.1283791671 * v * (1.0 - v2 / 3.0 + v2 * v2 / 10.0 - v2 * v2 * v2 / 42.0 + v2 * v2 * v2 * v2 / 216.0);
  }
  // Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign(v) * (1.0 - poly * exp(-a * a));
}

float power(float base, float e) {
  if (e == 0.0) return 1.0;
  if (base == 0.0) return e > 0.0 ? 0.0 : kInf;
  if (base > 0.0) return exp2(e * log2(base));
  if (e != floor(e)) return kNaN;
  float magnitude = exp2(e * log2(-base));
  return mod(e, 2.0) == 1.0 ? -magnitude : magnitude;
}

// tanh near 0 by its series: drivers may compute tanh as (e^2x - 1) / (e^2x + 1), which cancels away the
// digits of small x (lavapipe does; Mish on small negative inputs was off by 2e-3 relative).
float tanhAccurate(float v) {
  if (abs(v) >= 0.3) return tanh(v);
  float v2 = v * v;
  return v * (1.0 + v2 * (-1.0 / 3.0 + v2 * (2.0 / 15.0 + v2 * (-17.0 / 315.0 + v2 * (62.0 / 2835.0)))));
}
#endif
