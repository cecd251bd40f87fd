#version 450
// Global pooling with subgroup shuffles across the lanes of a plane (global_pool.glsl).
#define ONYX_SUBGROUP
#include "global_pool.glsl"
