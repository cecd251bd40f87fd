#include "onnx/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace onyx::onnx_io {

Expected<AtomicFile> AtomicFile::create(const std::filesystem::path& target) {
  std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string pattern = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0)
    return makeError("cannot create a temporary file in " + folder.string() + ": " + std::strerror(errno),
                     target.string());
  ::fchmod(fd, 0644);
  AtomicFile file;
  file.target_ = target;
  file.temporary_ = name.data();
  file.fd_ = fd;
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      fd_(other.fd_),
      written_(other.written_),
      renamed_(other.renamed_) {
  other.fd_ = -1;
  other.temporary_.clear();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!renamed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

Expected<void> AtomicFile::write(const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t count = ::write(fd_, bytes, size);
    if (count < 0) {
      if (errno == EINTR) continue;
      return makeError(std::string("cannot write: ") + std::strerror(errno), target_.string());
    }
    bytes += count;
    size -= size_t(count);
    written_ += size_t(count);
  }
  return {};
}

Expected<void> AtomicFile::writeZeros(size_t size) {
  static const char zeros[4096] = {};
  while (size > 0) {
    size_t chunk = std::min(size, sizeof(zeros));
    if (auto ok = write(zeros, chunk); !ok) return ok;
    size -= chunk;
  }
  return {};
}

Expected<void> AtomicFile::finish() {
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    return makeError(std::string("cannot write: ") + std::strerror(errno), target_.string());
  }
  fd_ = -1;
  return {};
}

Expected<void> AtomicFile::rename() {
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0)
    return makeError(std::string("cannot replace the file: ") + std::strerror(errno), target_.string());
  renamed_ = true;
  return {};
}

}  // namespace onyx::onnx_io
