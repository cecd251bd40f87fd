#pragma once
// A constant tensor (initializer or attribute). Its bytes are owned, shared with another tensor, or a view
// into an mmap of an external data file that is mapped on first access.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ir/data_type.h"
#include "ir/field_presence.h"
#include "util/expected.h"

namespace onyx {

class MappedFile;

// Immutable bytes with an owner that keeps them alive.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual std::span<const std::byte> bytes() const = 0;
  static std::shared_ptr<const Buffer> fromString(std::string bytes);
  static std::shared_ptr<const Buffer> fromVector(std::vector<std::byte> bytes);
  static std::shared_ptr<const Buffer> view(std::shared_ptr<const MappedFile> file, size_t offset, size_t length);
};

// Where the tensor's bytes live in the file onnx.proto calls external data.
struct ExternalData {
  std::string location;              // as written in the model, relative to the model's folder
  int64_t offset = 0;
  int64_t length = -1;               // -1: to the end of the file
  std::string checksum;
  std::filesystem::path resolvedPath;  // checked to stay inside the model's folder
};

// How the bytes were stored in the file, so saving writes them back the same way.
enum class TensorStorage { Raw, TypedField, External };

class Tensor {
 public:
  Tensor() = default;
  Tensor(DataType dtype, std::vector<int64_t> dims, std::shared_ptr<const Buffer> data);
  static Tensor strings(std::vector<int64_t> dims, std::vector<std::string> values);
  template <class T>
  static Tensor fromValues(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return Tensor(dtype, std::move(dims), Buffer::fromVector(std::move(bytes)));
  }
  static Tensor external(DataType dtype, std::vector<int64_t> dims, ExternalData external);

  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t elementCount() const;
  size_t byteSize() const { return dataTypeStorageBytes(dtype_, elementCount()); }

  // Raw little-endian bytes as onnx.proto's raw_data holds them; maps external data on first use.
  Expected<std::span<const std::byte>> bytes() const;
  // Same, for callers that checked loadable() or hold an in-memory tensor; empty span on failure.
  std::span<const std::byte> bytesOrEmpty() const;
  template <class T>
  std::span<const T> values() const {
    auto raw = bytesOrEmpty();
    return {reinterpret_cast<const T*>(raw.data()), raw.size() / sizeof(T)};
  }
  const std::vector<std::string>& stringValues() const { return strings_; }
  const std::shared_ptr<const Buffer>& buffer() const { return data_; }

  bool isExternal() const { return external_ != nullptr; }
  const ExternalData* externalData() const { return external_.get(); }
  TensorStorage storage() const { return storage_; }
  void setStorage(TensorStorage storage) { storage_ = storage; }

  const std::string& docString() const { return notes().docString; }
  void setDocString(std::string doc);
  // Serialized fields onnx 1.12 does not know (newer IR versions), written back unchanged on save.
  const std::string& unknownFields() const { return notes().unknownFields; }
  void setUnknownFields(std::string fields);
  // Which TensorProto fields the file had (see FieldPresence).
  FieldPresence presence() const { return presence_; }
  void setPresence(FieldPresence presence) { presence_ = presence; }

 private:
  struct LazyExternal;
  std::string name_;
  DataType dtype_ = DataType::Undefined;
  std::vector<int64_t> dims_;
  std::shared_ptr<const Buffer> data_;
  std::vector<std::string> strings_;
  std::shared_ptr<const ExternalData> external_;
  std::shared_ptr<LazyExternal> lazy_;  // shared so copies map the file once
  TensorStorage storage_ = TensorStorage::Raw;
  // Rare texts, shared between copies and apart so that a million small initializers stay small.
  struct Notes {
    std::string docString;
    std::string unknownFields;
  };
  const Notes& notes() const;
  std::shared_ptr<const Notes> notes_;
  FieldPresence presence_;
};

}  // namespace onyx
