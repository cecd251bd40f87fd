#version 450
// Reductions with a shared-memory tree for the workgroup reductions (reduce.glsl).
#include "reduce.glsl"
