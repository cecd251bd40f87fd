#pragma once
// An output file written under a temporary name in its final folder and renamed into place on commit(), so
// nobody ever sees a half-written file and a failure leaves the previous file intact.
#include <cstddef>
#include <filesystem>
#include <string>

#include "util/expected.h"

namespace onyx::onnx_io {

class AtomicFile {
 public:
  static Expected<AtomicFile> create(const std::filesystem::path& target);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary file unless committed

  int fd() const { return fd_; }
  size_t written() const { return written_; }
  Expected<void> write(const void* data, size_t size);
  Expected<void> writeZeros(size_t size);
  // Flushes to disk and closes; the file is not in place yet (see rename()).
  Expected<void> finish();
  // Moves the finished file to its target name.
  Expected<void> rename();

 private:
  AtomicFile() = default;
  std::filesystem::path target_;
  std::string temporary_;
  int fd_ = -1;
  size_t written_ = 0;
  bool renamed_ = false;
};

}  // namespace onyx::onnx_io
