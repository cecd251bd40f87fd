#version 450
// Cast between float32 and float16 (in the float16 build; the float32 build copies).
#include "onyx_common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int TO_HALF = 1;
#ifdef ONYX_F16
layout(std430, binding = 0) readonly buffer XF { float xf[]; };
layout(std430, binding = 1) readonly buffer XH { float16_t xh[]; };
layout(std430, binding = 2) writeonly buffer YF { float yf[]; };
layout(std430, binding = 3) writeonly buffer YH { float16_t yh[]; };
#else
layout(std430, binding = 0) readonly buffer XF { float xf[]; };
layout(std430, binding = 1) readonly buffer XH { float xh[]; };
layout(std430, binding = 2) writeonly buffer YF { float yf[]; };
layout(std430, binding = 3) writeonly buffer YH { float yh[]; };
#endif
#define COUNT p[0]

void main() {
  uint i = linearIndex();
  if (i >= uint(COUNT)) return;
  if (TO_HALF == 1)
    yh[i] = SCALAR(xf[i]);
  else
    yf[i] = float(xh[i]);
}
