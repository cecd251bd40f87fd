#pragma once
// The process's peak resident size.
#include <cstdint>
#include <optional>

namespace onyx {

// The process's peak resident set so far (VmHWM: heap, stacks and the pages of its libraries it touched),
// in bytes; nullopt where /proc does not tell it.
std::optional<int64_t> peakResidentBytes();

}  // namespace onyx
