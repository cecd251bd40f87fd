#version 450
// A fused element-wise node (a call of an onyx.fused function, written by the elementwise-fusion pass) as one
// dispatch: each invocation reads its inputs through per-input broadcast strides, runs the body's register
// program (fused_elementwise.h) and writes only the result. The program and the strides come in a buffer.
#include "onyx_common.glsl"
#include "onyx_math.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Program { int code[]; };
layout(std430, binding = 1) readonly buffer X0 { SCALAR x0[]; };
layout(std430, binding = 2) readonly buffer X1 { SCALAR x1[]; };
layout(std430, binding = 3) readonly buffer X2 { SCALAR x2[]; };
layout(std430, binding = 4) readonly buffer X3 { SCALAR x3[]; };
layout(std430, binding = 5) readonly buffer X4 { SCALAR x4[]; };
layout(std430, binding = 6) readonly buffer X5 { SCALAR x5[]; };
layout(std430, binding = 7) readonly buffer X6 { SCALAR x6[]; };
layout(std430, binding = 8) readonly buffer X7 { SCALAR x7[]; };
layout(std430, binding = 9) writeonly buffer Y { SCALAR y[]; };
#define COUNT p[0]
#define RANK p[1]
#define INPUTS p[2]
#define INSTRUCTIONS p[3]
#define RESULT p[4]
#define DIM(d) p[5 + (d)]
// code[]: the strides of input k over dim d at k * 6 + d, then 7 ints per instruction from kCode.
const int kMaxInputs = 8;
const int kCode = 48;
const int kInstruction = 7;
const int kRegisters = 32;

float load(int k, uint index) {
  switch (k) {
    case 0: return float(x0[index]);
    case 1: return float(x1[index]);
    case 2: return float(x2[index]);
    case 3: return float(x3[index]);
    case 4: return float(x4[index]);
    case 5: return float(x5[index]);
    case 6: return float(x6[index]);
  }
  return float(x7[index]);
}

// The operations in ElementwiseProgram::Op order.
float apply(int op, float a, float b, float alpha, float beta) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return power(a, b);
    case 5: return max(a, b);
    case 6: return min(a, b);
    case 7: return a < 0.0 ? a * b : a;
    case 8: return a > 0.0 ? a : 0.0;
    case 9: return a < 0.0 ? alpha * a : a;
    case 10: return a >= 0.0 ? 1.0 / (1.0 + exp(-a)) : exp(a) / (1.0 + exp(a));
    case 11: return clamp(alpha * a + beta, 0.0, 1.0);
    case 12: return a * clamp(a / 6.0 + 0.5, 0.0, 1.0);
    case 13: return tanhAccurate(a);
    case 14: return exp(a);
    case 15: return a < 0.0 ? kNaN : (a == 0.0 ? -kInf : log(a));
    case 16: return a < 0.0 ? kNaN : sqrt(a);
    case 17: return -a;
    case 18: return abs(a);
    case 19: return erfApprox(a);
    case 20: return 1.0 / a;
    case 21: return floor(a);
    case 22: return ceil(a);
  }
  return a;
}

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  uint offsets[kMaxInputs] = uint[kMaxInputs](0, 0, 0, 0, 0, 0, 0, 0);
  uint rest = i;
  for (int d = RANK - 1; d >= 0; --d) {
    uint c = rest % uint(DIM(d));
    rest /= uint(DIM(d));
    for (int k = 0; k < INPUTS; ++k) offsets[k] += c * uint(code[k * 6 + d]);
  }
  float r[kRegisters];
  for (int k = 0; k < INPUTS; ++k) r[k] = load(k, offsets[k]);
  for (int n = 0; n < INSTRUCTIONS; ++n) {
    int at = kCode + n * kInstruction;
    int op = code[at], a = code[at + 1], b = code[at + 2], c = code[at + 3];
    float value;
    if (op == 23) {  // Clip: optional min and max registers
      value = r[a];
      if (b >= 0) value = max(value, r[b]);
      if (c >= 0) value = min(value, r[c]);
    } else {
      value = apply(op, r[a], b >= 0 ? r[b] : 0.0, intBitsToFloat(code[at + 5]), intBitsToFloat(code[at + 6]));
    }
    r[code[at + 4]] = value;
  }
  y[i] = SCALAR(r[RESULT]);
}
