// The process's memory (process_memory.h).
#include "util/process_memory.h"

#include <cstddef>  // defines __GLIBC__ on glibc systems
#include <fstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace onyx {

void keepLargeBlocksReturnable() {
#if defined(__GLIBC__)
  // Setting the threshold (glibc's own default) turns off its dynamic raising, and with it the raising of the
  // trim threshold, so a freed block at the top of the heap is returned too.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

std::optional<int64_t> peakResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    try {
      return int64_t(std::stoll(line.substr(6))) * 1024;  // "VmHWM:    53212 kB"
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace onyx
