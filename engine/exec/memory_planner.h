#pragma once
// Plans one arena for the intermediate tensors of a run from their lifetimes: each buffer gets an offset so
// that buffers alive at the same time never overlap; an output may take over the buffer of an input that
// dies at its node when the kernel allows it (in place). Sizes come from a recording run (or from static
// shapes), so data-dependent sizes are handled: a request larger than planned falls back to the heap.
#include <cstdint>
#include <string>
#include <vector>

namespace onyx::exec {

struct BufferRequest {
  int64_t bytes = 0;
  int firstStep = 0;    // step that writes it
  int lastStep = 0;     // last step that reads it (or any value viewing it)
  int sharesWith = -1;  // in place: index of an earlier buffer whose memory this one takes over
  std::string label;    // "Conv '/conv1' (#3) output 0 'x'" for reports
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per request
  int64_t arenaBytes = 0;        // size the arena needs
  int64_t peakBytes = 0;         // largest sum of live buffers at one step (arena >= peak)
  int peakStep = -1;
  std::vector<int> aliveAtPeak;  // requests alive at peakStep, largest first
  int inPlaceCount = 0;
};

constexpr int64_t kArenaAlignment = 64;

// Greedy by size (largest first), each buffer at the lowest offset free during its lifetime.
MemoryPlan planMemory(const std::vector<BufferRequest>& requests);

}  // namespace onyx::exec
