// The register-tiled GEMM core shared by matmul_vulkan.comp (MatMul, Gemm, pointwise Conv) and
// conv_gemm_vulkan.comp (implicit-GEMM convolution). A group of 256 threads (16 x 16) computes a BM x 64 tile
// of Y = A x B; each thread a TM x 4 block (rows ty*TM.., columns tx*4..). K advances 16 at a time through
// two shared-memory buffers: the next slice is read from memory into registers while the current one is
// multiplied, then stored into the other buffer, so one barrier per slice suffices.
//
// The including shader defines, after including this file (the prototypes are below):
//   vec4 loadA(int row, int k): A[row][k..k+3] (A_ALONG_M false) or A[row..row+3][k] (A_ALONG_M true),
//   vec4 loadB(int k, int col): B[k][col..col+3] (B_ALONG_K false) or B[k..k+3][col] (B_ALONG_K true),
//   each 0 outside the matrix, and void storeY(int row, int col, vec4 v) for columns col..col+3.
// Which way the loads run follows the memory layout, so neighbouring threads read neighbouring addresses.
// With SPLIT_K > 1 (thin problems, too few tiles to fill the device) each group multiplies one part of K and
// stores its raw sums into a scratch of SPLIT_K partial outputs, which gemm_splitk_vulkan.comp adds up.
layout(local_size_x = 16, local_size_y = 16) in;
// Rows per thread: the tile is 16*TM x 64 (TM 2, 4 or 8).
layout(constant_id = 0) const int TM = 4;
// Whether A's contiguous direction is M (a transposed A) and B's is K (a transposed B).
layout(constant_id = 1) const bool A_ALONG_M = false;
layout(constant_id = 2) const bool B_ALONG_K = false;
// Parts of K computed by separate groups (gl_WorkGroupID.z = outer index * SPLIT_K + part).
layout(constant_id = 9) const int SPLIT_K = 1;

const int BK = 16, BN = 64;
const int BM = 16 * TM;
const int A_LOADS = (BM * BK / 4 + 255) / 256;  // vec4 loads per thread per slice
const int B_LOADS = BN * BK / 4 / 256;

vec4 loadA(int row, int k);
vec4 loadB(int k, int col);
void storeY(int row, int col, vec4 v);

shared float tileA[2][BK][BM];
shared vec4 tileB[2][BK][BN / 4];

vec4 stagedA[A_LOADS];
vec4 stagedB[B_LOADS];

// Element e of the slice's vec4 loads: (row, k) of its first value.
ivec2 aSlot(int e) {
  return A_ALONG_M ? ivec2((e % (BM / 4)) * 4, e / (BM / 4)) : ivec2(e / (BK / 4), (e % (BK / 4)) * 4);
}
ivec2 bSlot(int e) {
  return B_ALONG_K ? ivec2((e % (BK / 4)) * 4, e / (BK / 4)) : ivec2(e / (BN / 4), (e % (BN / 4)) * 4);
}

void fetchSlice(int row0, int col0, int k0, int thread) {
  for (int i = 0; i < A_LOADS; ++i) {
    int e = thread + 256 * i;
    ivec2 s = aSlot(e);
    stagedA[i] = e < BM * BK / 4 ? loadA(row0 + s.x, k0 + s.y) : vec4(0.0);
  }
  for (int i = 0; i < B_LOADS; ++i) {
    ivec2 s = bSlot(thread + 256 * i);
    stagedB[i] = loadB(k0 + s.x, col0 + s.y);
  }
}

void storeSlice(int stage, int thread) {
  for (int i = 0; i < A_LOADS; ++i) {
    int e = thread + 256 * i;
    if (e >= BM * BK / 4) break;
    ivec2 s = aSlot(e);
    for (int j = 0; j < 4; ++j) {
      if (A_ALONG_M)
        tileA[stage][s.y][s.x + j] = stagedA[i][j];
      else
        tileA[stage][s.y + j][s.x] = stagedA[i][j];
    }
  }
  for (int i = 0; i < B_LOADS; ++i) {
    ivec2 s = bSlot(thread + 256 * i);
    if (B_ALONG_K) {
      for (int j = 0; j < 4; ++j) tileB[stage][s.x + j][s.y / 4][s.y % 4] = stagedB[i][j];
    } else {
      tileB[stage][s.x][s.y / 4] = stagedB[i];
    }
  }
}

// Runs the K loop over [kBegin, kEnd) (kBegin a multiple of 16) for the tile at (row0, col0) and hands each
// thread's outputs to storeY.
void gemmTile(int row0, int col0, int kBegin, int kEnd) {
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int thread = ty * 16 + tx;
  vec4 acc[TM];
  for (int i = 0; i < TM; ++i) acc[i] = vec4(0.0);
  int slices = max(kEnd - kBegin + BK - 1, 0) / BK;
  if (slices > 0) {
    fetchSlice(row0, col0, kBegin, thread);
    storeSlice(0, thread);
  }
  barrier();
  for (int s = 0; s < slices; ++s) {
    int current = s & 1;
    bool more = s + 1 < slices;
    if (more) fetchSlice(row0, col0, kBegin + (s + 1) * BK, thread);
    for (int kk = 0; kk < BK; ++kk) {
      vec4 b = tileB[current][kk][tx];
      for (int i = 0; i < TM; ++i) acc[i] += tileA[current][kk][ty * TM + i] * b;
    }
    if (more) storeSlice(current ^ 1, thread);
    barrier();
  }
  for (int i = 0; i < TM; ++i) storeY(row0 + ty * TM + i, col0 + tx * 4, acc[i]);
}

// The K range of this group's part (whole slices; the last part ends at kTotal).
ivec2 splitRange(int kTotal) {
  int part = int(gl_WorkGroupID.z) % SPLIT_K;
  int chunk = ((kTotal + SPLIT_K - 1) / SPLIT_K + BK - 1) / BK * BK;
  return ivec2(min(part * chunk, kTotal), min((part + 1) * chunk, kTotal));
}
