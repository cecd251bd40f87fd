// The element-wise ops a convolution applies to its output before storing it (the executor's epilogue
// fusion: Conv then Relu, Clip, an Add of the residual branch, SiLU...), up to three, chosen by specialization
// constants EPILOGUE_0..2 (kEpilogue* below, matching conv_vulkan.cpp and matmul_vulkan.cpp) with two float
// parameters each in push constants EPILOGUE_PARAMS.. +5 (19..24 unless the shader defines it). `residual` is
// the element of the residual operand at the same index. MatMul's chains add a linear stage (v * a + b) and
// GELU with the exact erf.
#include "onyx_math.glsl"
#ifndef EPILOGUE_PARAMS
#define EPILOGUE_PARAMS 19
#endif
const int kEpilogueNone = 0, kEpilogueRelu = 1, kEpilogueLeakyRelu = 2, kEpilogueClip = 3, kEpilogueSigmoid = 4,
          kEpilogueSilu = 5, kEpilogueTanh = 6, kEpilogueAddResidual = 7, kEpilogueLinear = 8, kEpilogueGeluErf = 9;

float epilogueOp(int code, float v, int param, float residual) {
  if (code == kEpilogueRelu) return max(v, 0.0);
  if (code == kEpilogueLeakyRelu) return v >= 0.0 ? v : v * PF(param);
  if (code == kEpilogueClip) return min(max(v, PF(param)), PF(param + 1));
  if (code == kEpilogueSigmoid) return 1.0 / (1.0 + exp(-v));
  if (code == kEpilogueSilu) return v / (1.0 + exp(-v));
  if (code == kEpilogueTanh) return tanh(v);
  if (code == kEpilogueAddResidual) return v + residual;
  if (code == kEpilogueLinear) return v * PF(param) + PF(param + 1);
  if (code == kEpilogueGeluErf) return 0.5 * v * (1.0 + erfApprox(v * 0.70710678118654752));
  return v;
}

bool readsResidual() {
  return EPILOGUE_0 == kEpilogueAddResidual || EPILOGUE_1 == kEpilogueAddResidual || EPILOGUE_2 == kEpilogueAddResidual;
}

float applyEpilogue(float v, float residual) {
  v = epilogueOp(EPILOGUE_0, v, EPILOGUE_PARAMS, residual);
  v = epilogueOp(EPILOGUE_1, v, EPILOGUE_PARAMS + 2, residual);
  return epilogueOp(EPILOGUE_2, v, EPILOGUE_PARAMS + 4, residual);
}
