#pragma once
// What work split into slabs shares (conv_slabs_dnnl.h, matmul_dnnl.h): each slab a oneDNN primitive of its own
// run as the thread pool's tasks in shared-cores runs. How many slabs; the calling thread's buffers for them
// (oneDNN's own scratchpad, scratchpad_mode::library, is one buffer for the whole process unless it was built
// with ONEDNN_ENABLE_CONCURRENT_EXEC, which Debian's is not: two slabs at once wrote over each other's, wrong
// rows, seen in the tests); copies between a slab's dense buffer and the strided rows it stands for.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace onyx::exec {

// Slabs for `flops` of work that can be cut into `units` on `threads` threads: one per kFlopsPerSlab, at most
// eight per thread and one per unit (fewer than 2: the work stays whole). About 10-20 us of one core's work:
// each slab costs a few microseconds of descriptors and a primitive call (shufflenet_v2's small convs ran
// 1.08x slower at half this).
int64_t slabsForWork(int64_t flops, int64_t units, int threads);
constexpr int64_t kFlopsPerSlab = int64_t(2) << 20;

// [0, total) cut into `count` ranges of whole blocks of `block` (the last may end in a partial one): the
// blocks spread evenly, the first ranges one more where they do not divide. Output channels or columns of
// slabs that write whole vector blocks.
struct SlabRange {
  int64_t begin = 0, size = 0;
};
std::vector<SlabRange> blockRanges(int64_t total, int64_t block, int64_t count);

// kSlabScratchpad: the slab primitives' scratchpads (scratchpad_mode::user); kSlabOutput: a slab's output
// before it is copied into place; kSlabOperand: a slab's part of an operand, copied dense.
enum SlabBuffer { kSlabScratchpad, kSlabOutput, kSlabOperand, kSlabBufferUses };
// At least `bytes` bytes, 4096-aligned, kept for the thread's next slabs. Throws std::bad_alloc.
float* slabThreadBuffer(SlabBuffer use, size_t bytes);

// Copies `rows` rows of `columns` floats from rows `fromStride` floats apart to rows `toStride` apart.
void copyRows(const float* from, int64_t fromStride, float* to, int64_t toStride, int64_t rows, int64_t columns);

}  // namespace onyx::exec
