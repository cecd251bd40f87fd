#include "ir/tensor.h"

#include "ir/file_view.h"
#include "util/mapped_file.h"

namespace onyx {

const Tensor::Notes& Tensor::notes() const {
  static const Notes none;
  return notes_ ? *notes_ : none;
}

void Tensor::setDocString(std::string doc) {
  if (doc.empty() && !notes_) return;
  Notes fresh = notes();
  fresh.docString = std::move(doc);
  notes_ = std::make_shared<const Notes>(std::move(fresh));
}

void Tensor::setUnknownFields(std::string fields) {
  if (fields.empty() && !notes_) return;
  Notes fresh = notes();
  fresh.unknownFields = std::move(fields);
  notes_ = std::make_shared<const Notes>(std::move(fresh));
}
namespace {

template <class Container>
class OwnedBuffer final : public Buffer {
 public:
  explicit OwnedBuffer(Container bytes) : bytes_(std::move(bytes)) {}
  std::span<const std::byte> bytes() const override {
    return {reinterpret_cast<const std::byte*>(bytes_.data()), bytes_.size()};
  }

 private:
  Container bytes_;
};

class FileView final : public Buffer {
 public:
  FileView(std::shared_ptr<const MappedFile> file, size_t offset, size_t length)
      : file_(std::move(file)), offset_(offset), length_(length) {}
  std::span<const std::byte> bytes() const override { return file_->bytes().subspan(offset_, length_); }

 private:
  std::shared_ptr<const MappedFile> file_;
  size_t offset_;
  size_t length_;
};

}  // namespace

std::shared_ptr<const Buffer> Buffer::fromString(std::string bytes) {
  return std::make_shared<OwnedBuffer<std::string>>(std::move(bytes));
}

std::shared_ptr<const Buffer> Buffer::fromVector(std::vector<std::byte> bytes) {
  return std::make_shared<OwnedBuffer<std::vector<std::byte>>>(std::move(bytes));
}

std::shared_ptr<const Buffer> Buffer::view(std::shared_ptr<const MappedFile> file, size_t offset, size_t length) {
  return std::make_shared<FileView>(std::move(file), offset, length);
}

bool isFileView(const Buffer& buffer) { return dynamic_cast<const FileView*>(&buffer) != nullptr; }

struct Tensor::LazyExternal {
  std::once_flag once;
  std::shared_ptr<const Buffer> buffer;
  Error error;
};

Tensor::Tensor(DataType dtype, std::vector<int64_t> dims, std::shared_ptr<const Buffer> data)
    : dtype_(dtype), dims_(std::move(dims)), data_(std::move(data)) {}

Tensor Tensor::strings(std::vector<int64_t> dims, std::vector<std::string> values) {
  Tensor tensor(DataType::String, std::move(dims), nullptr);
  tensor.strings_ = std::move(values);
  tensor.storage_ = TensorStorage::TypedField;
  return tensor;
}

Tensor Tensor::external(DataType dtype, std::vector<int64_t> dims, ExternalData external) {
  Tensor tensor(dtype, std::move(dims), nullptr);
  tensor.external_ = std::make_shared<const ExternalData>(std::move(external));
  tensor.lazy_ = std::make_shared<LazyExternal>();
  tensor.storage_ = TensorStorage::External;
  return tensor;
}

int64_t Tensor::elementCount() const {
  int64_t count = 1;
  for (int64_t dim : dims_) count *= dim;
  return count;
}

Expected<std::span<const std::byte>> Tensor::bytes() const {
  if (!external_) {
    if (!data_) return std::span<const std::byte>{};
    return data_->bytes();
  }
  std::call_once(lazy_->once, [this] {
    const ExternalData& ext = *external_;
    auto where = "tensor '" + name_ + "'";
    auto file = MappedFile::open(ext.resolvedPath);
    if (!file) {
      lazy_->error = makeError("external data file '" + ext.location + "' cannot be read: " +
                                   file.error().message + "; keep it next to the model",
                               where);
      return;
    }
    size_t fileSize = (*file)->bytes().size();
    size_t expected = byteSize();
    size_t length = ext.length >= 0 ? static_cast<size_t>(ext.length) : fileSize - std::min<size_t>(ext.offset, fileSize);
    if (ext.offset < 0 || static_cast<size_t>(ext.offset) > fileSize || length > fileSize - ext.offset) {
      lazy_->error = makeError("external data file '" + ext.location + "' is too short: needs bytes " +
                                   std::to_string(ext.offset) + ".." + std::to_string(ext.offset + length) +
                                   ", file has " + std::to_string(fileSize),
                               where);
      return;
    }
    if (length != expected) {
      lazy_->error = makeError("external data of '" + ext.location + "' has " + std::to_string(length) +
                                   " bytes, the tensor's type and shape need " + std::to_string(expected),
                               where);
      return;
    }
    lazy_->buffer = Buffer::view(std::move(*file), static_cast<size_t>(ext.offset), length);
  });
  if (!lazy_->buffer) return lazy_->error;
  return lazy_->buffer->bytes();
}

std::span<const std::byte> Tensor::bytesOrEmpty() const {
  auto result = bytes();
  return result ? *result : std::span<const std::byte>{};
}

}  // namespace onyx
