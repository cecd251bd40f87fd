#pragma once
// float16 <-> float32 for runs of elements: F16C where the CPU has it (it comes with the AVX2 level of
// cpu_isa.h, so ONYX_CPU_ISA=baseline turns it off), one element at a time through exec::Half otherwise.
// Kernels that compute float16 tensors in float32 widen a run with these instead of converting element by
// element (a function call per element and operand).
#include <cstdint>

namespace onyx::exec {

void halvesToFloats(const uint16_t* src, float* dst, int64_t n);
void floatsToHalves(const float* src, uint16_t* dst, int64_t n);
// `rows` runs of n elements, each `srcStride` floats and `dstStride` halves after the last: a tile of a
// product narrowed in one call (a call per 32-float row of a tile cost 40 us on a 128 x 1024 output).
void floatRowsToHalves(const float* src, int64_t srcStride, uint16_t* dst, int64_t dstStride, int64_t rows, int64_t n);

}  // namespace onyx::exec
