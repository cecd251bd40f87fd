#include "util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace onyx {

Expected<std::shared_ptr<const MappedFile>> MappedFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return makeError(path.string() + " is not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile);
  file->path_ = path;
  file->size_ = static_cast<size_t>(info.st_size);
  if (file->size_ > 0) {
    void* data = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      int error = errno;
      ::close(fd);
      return makeError("cannot map " + path.string() + ": " + std::strerror(error));
    }
    file->data_ = data;
  }
  ::close(fd);
  return std::shared_ptr<const MappedFile>(std::move(file));
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace onyx
