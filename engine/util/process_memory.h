#pragma once
// The process's memory: the allocator policy for tensors, and the peak resident size.
//
// glibc's malloc serves blocks from 128 KiB up with their own mmap and returns them on free, but after the
// first such free it raises that threshold to the freed size (up to 32 MiB) and keeps later blocks in its
// heap, from which freed memory is rarely given back: a model's first run, which allocates every
// intermediate tensor on its own to plan the arena, then left its peak of freed tensors resident
// (bert_small_int4: 12 MB, more than its 4-bit weights). Fixing the threshold keeps each tensor-sized block
// returned when freed; steady-state runs allocate from their arena, not from malloc.
#include <cstdint>
#include <optional>

namespace onyx {

// Called once at the start of the executable, before large allocations; a no-op outside glibc.
void keepLargeBlocksReturnable();

// The process's peak resident set so far (VmHWM: heap, stacks and the pages of its libraries it touched),
// in bytes; nullopt where /proc does not tell it.
std::optional<int64_t> peakResidentBytes();

}  // namespace onyx
