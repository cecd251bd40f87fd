// The vec4 loads of gemm_tile.glsl for matrices read through strides (aOff + row*A_M + k*A_K, likewise B),
// from the including shader's elementA/elementB (bounds-checked scalars) and, where VEC_A / VEC_B say the
// loaded direction is contiguous and 16-byte aligned, one vec4 read of the a4/b4 views.
vec4 loadA(int row, int k) {
#ifndef ONYX_F16
  if (VEC_A) {
    if (A_ALONG_M ? row + 3 < M && k < K : row < M && k + 3 < K) return a4[(aOff + row * A_M + k * A_K) >> 2];
  }
#endif
  if (A_ALONG_M) return vec4(elementA(row, k), elementA(row + 1, k), elementA(row + 2, k), elementA(row + 3, k));
  return vec4(elementA(row, k), elementA(row, k + 1), elementA(row, k + 2), elementA(row, k + 3));
}

vec4 loadB(int k, int col) {
#ifndef ONYX_F16
  if (VEC_B) {
    if (B_ALONG_K ? k + 3 < K && col < N : k < K && col + 3 < N) return b4[(bOff + k * B_K + col * B_N) >> 2];
  }
#endif
  if (B_ALONG_K) return vec4(elementB(k, col), elementB(k + 1, col), elementB(k + 2, col), elementB(k + 3, col));
  return vec4(elementB(k, col), elementB(k, col + 1), elementB(k, col + 2), elementB(k, col + 3));
}
