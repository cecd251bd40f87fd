#version 450
// Row normalizations with subgroup arithmetic for the workgroup reductions (norm_rows.glsl).
#define ONYX_SUBGROUP
#include "norm_rows.glsl"
