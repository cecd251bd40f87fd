#version 450
// Row normalizations with a shared-memory tree for the workgroup reductions (norm_rows.glsl).
#include "norm_rows.glsl"
