// The process's memory (process_memory.h).
#include "util/process_memory.h"

#include <fstream>
#include <string>

namespace onyx {

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
