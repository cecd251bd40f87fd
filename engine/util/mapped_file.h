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

// The pages under `bytes` are read in no order (a table a kernel gathers rows from): no read-ahead, and a
// fault maps only its own page, not the 16 around it (Linux maps neighbours already in the page cache, which
// for bert_small_int4's mapped embedding table made 6 MB of its 8 MB resident for 128 rows). A hint: where the
// system ignores it, or the bytes are not mapped from a file, nothing changes.
void adviseRandomAccess(std::span<const std::byte> bytes);

}  // namespace onyx
