#pragma once
// Read-only memory maps of files, so external weights are paged in on use instead of copied.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

#include "util/expected.h"

namespace onyx {

class MappedFile {
 public:
  static Expected<std::shared_ptr<const MappedFile>> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(data_), size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedFile() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
  std::filesystem::path path_;
};

}  // namespace onyx
