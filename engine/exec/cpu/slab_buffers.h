#pragma once
// Buffers of the calling thread for work split into slabs, each a oneDNN primitive of its own run as the thread
// pool's tasks (conv_slabs_dnnl.h, matmul_dnnl.h). oneDNN's own scratchpad (scratchpad_mode::library) is one
// buffer for the whole process unless it was built with ONEDNN_ENABLE_CONCURRENT_EXEC, which Debian's is not:
// two slabs at once wrote over each other's (wrong rows, seen in the tests).
#include <cstddef>

namespace onyx::exec {

// kSlabScratchpad: the slab primitives' scratchpads (scratchpad_mode::user); kSlabOutput: a slab's output
// before it is copied into place; kSlabOperand: a slab's part of an operand, copied dense.
enum SlabBuffer { kSlabScratchpad, kSlabOutput, kSlabOperand, kSlabBufferUses };
// At least `bytes` bytes, 4096-aligned, kept for the thread's next slabs. Throws std::bad_alloc.
float* slabThreadBuffer(SlabBuffer use, size_t bytes);

}  // namespace onyx::exec
