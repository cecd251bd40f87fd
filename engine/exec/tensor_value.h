#pragma once
// Values as they exist while a model runs: dense tensors in contiguous row-major storage (strings as
// std::string elements), sequences of tensors and empty optionals. Copies are cheap: storage is shared.
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "exec/half.h"
#include "ir/data_type.h"
#include "ir/type.h"

namespace onyx {
class Tensor;
}

namespace onyx::exec {

class Backend;
using Dims = std::vector<int64_t>;

int64_t elementCount(const Dims& dims);
// "float32[1, 3, 224, 224]"
std::string describeTensor(DataType dtype, const Dims& dims);
// Bytes per element in run-time storage: std::string for strings, one byte for bool, 0 for types the
// executor does not hold (sub-byte and float8 types are unpacked by the kernels that read them).
size_t elementBytes(DataType dtype);

class TensorValue {
 public:
  TensorValue() = default;
  // Zero-filled heap storage.
  static TensorValue allocate(DataType dtype, Dims dims);
  // A view of memory someone else owns (`keepAlive` holds it): arena slices, constants, aliases.
  static TensorValue view(DataType dtype, Dims dims, void* data, std::shared_ptr<const void> keepAlive);
  // Shares the constant's bytes (read-only) when it is already in run-time layout, else converts.
  static TensorValue fromConstant(const onyx::Tensor& tensor);
  static TensorValue fromStrings(Dims dims, std::vector<std::string> values);
  template <class T>
  static TensorValue fromVector(DataType dtype, Dims dims, const std::vector<T>& values) {
    TensorValue t = allocate(dtype, std::move(dims));
    if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(T));
    return t;
  }
  template <class T>
  static TensorValue scalar(DataType dtype, T value) {
    return fromVector<T>(dtype, {}, std::vector<T>{value});
  }

  bool empty() const { return dtype_ == DataType::Undefined; }  // no tensor at all (not 0 elements)
  DataType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  int64_t rank() const { return int64_t(dims_.size()); }
  int64_t dim(int64_t axis) const { return dims_[size_t(axis)]; }
  int64_t count() const { return count_; }
  size_t byteSize() const { return size_t(count_) * elementBytes(dtype_); }
  std::string describe() const { return describeTensor(dtype_, dims_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  template <class T>
  std::span<const T> span() const {
    return {data<T>(), size_t(count_)};
  }
  template <class T>
  std::span<T> mutableSpan() {
    return {data<T>(), size_t(count_)};
  }
  // Reads element i of an integer or floating tensor as int64 / double (shape inputs, attributes as inputs).
  int64_t intAt(int64_t i) const;
  double doubleAt(int64_t i) const;
  std::vector<int64_t> toInts() const;

  // Same storage, other dims (count must match): Reshape, Flatten, Squeeze without a copy.
  TensorValue reshaped(Dims dims) const;
  // A deep copy in fresh heap storage.
  TensorValue clone() const;

  // Identity of the storage owner: two tensors with the same id share memory (the memory planner uses it).
  const void* storageId() const { return owner_.get(); }
  const std::shared_ptr<const void>& owner() const { return owner_; }
  // Channels-last storage: dims stay logical (N, C, spatial...) while the bytes are ordered (N, spatial..., C),
  // oneDNN's acdb. Only kernels that opt in (Kernel::acceptsChannelsLast) ever see such a tensor; the executor
  // converts it for everyone else. reshaped() views are plain.
  bool channelsLast() const { return layout_ == Layout::ChannelsLast; }
  void setChannelsLast(bool on) { layout_ = on ? Layout::ChannelsLast : Layout::Plain; }
  // Channel blocks of 16 (oneDNN's aBcd16b, nChw16c): the bytes ordered (N, C/16, spatial..., 16), for a
  // float tensor whose channels are a multiple of 16. Its Winograd convolutions read and write it, so a
  // chain of them skips the reorders to and from channels-last (plan_layout.h). Only kernels that opt in
  // (Kernel::acceptsBlocked16) ever see it.
  bool blocked16() const { return layout_ == Layout::Blocked16; }
  void setBlocked16(bool on) { layout_ = on ? Layout::Blocked16 : Layout::Plain; }
  bool isPlainLayout() const { return layout_ == Layout::Plain; }
  static bool canBlock16(const Dims& dims) { return dims.size() >= 3 && dims.size() <= 5 && dims[1] % 16 == 0; }
  // The same values in plain (N, C, spatial...) storage; the tensor itself when it already is plain.
  TensorValue toPlainLayout() const;
  // (N, C, S1..Sk) -> (N, S1..Sk, C): the dims under which channels-last bytes read as a plain tensor.
  static Dims channelsLastOrder(const Dims& dims);

  // The backend whose memory holds the data; null for host memory.
  const Backend* device() const { return device_; }
  void setDevice(const Backend* device) { device_ = device; }

 private:
  DataType dtype_ = DataType::Undefined;
  Dims dims_;
  int64_t count_ = 0;
  void* data_ = nullptr;
  std::shared_ptr<const void> owner_;
  const Backend* device_ = nullptr;
  enum class Layout : uint8_t { Plain, ChannelsLast, Blocked16 };
  Layout layout_ = Layout::Plain;
};

struct SequenceValue {
  DataType elemType = DataType::Undefined;
  std::vector<TensorValue> tensors;
};

// An optional without an element (an optional holding something is represented by the thing itself).
struct EmptyOptional {
  Type type;  // the optional's declared type, e.g. optional(seq(float32))
};

// monostate: absent (an omitted optional input or output).
using RunValue = std::variant<std::monostate, TensorValue, SequenceValue, EmptyOptional>;

inline bool isTensor(const RunValue& v) {
  return std::holds_alternative<TensorValue>(v);
}
std::string describeValue(const RunValue& value);

// Element types as C++ types, for kernels that dispatch on dtype.
template <DataType D>
struct CppTypeOf;
template <>
struct CppTypeOf<DataType::Float> {
  using type = float;
};
template <>
struct CppTypeOf<DataType::Double> {
  using type = double;
};
template <>
struct CppTypeOf<DataType::Float16> {
  using type = Half;
};
template <>
struct CppTypeOf<DataType::BFloat16> {
  using type = BFloat16;
};
template <>
struct CppTypeOf<DataType::Int8> {
  using type = int8_t;
};
template <>
struct CppTypeOf<DataType::Int16> {
  using type = int16_t;
};
template <>
struct CppTypeOf<DataType::Int32> {
  using type = int32_t;
};
template <>
struct CppTypeOf<DataType::Int64> {
  using type = int64_t;
};
template <>
struct CppTypeOf<DataType::Uint8> {
  using type = uint8_t;
};
template <>
struct CppTypeOf<DataType::Uint16> {
  using type = uint16_t;
};
template <>
struct CppTypeOf<DataType::Uint32> {
  using type = uint32_t;
};
template <>
struct CppTypeOf<DataType::Uint64> {
  using type = uint64_t;
};
template <>
struct CppTypeOf<DataType::Bool> {
  using type = bool;
};
template <>
struct CppTypeOf<DataType::String> {
  using type = std::string;
};

}  // namespace onyx::exec
