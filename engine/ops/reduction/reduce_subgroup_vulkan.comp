#version 450
// Reductions with subgroup arithmetic for the workgroup reductions (reduce.glsl).
#define ONYX_SUBGROUP
#include "reduce.glsl"
