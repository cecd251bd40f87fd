#version 450
// Global pooling with a shared-memory tree across the lanes of a plane (global_pool.glsl).
#include "global_pool.glsl"
