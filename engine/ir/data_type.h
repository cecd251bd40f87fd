#pragma once
// Element types, numbered as onnx.proto's TensorProto.DataType so the numbers pass through I/O unchanged.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace onyx {

enum class DataType : int32_t {
  Undefined = 0,
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  Uint4 = 21,
  Int4 = 22,
  Float4E2M1 = 23,
  Float8E8M0 = 24,
  Uint2 = 25,
  Int2 = 26,
};

// "float32", "int64", "bool"...; "dtype(N)" for numbers onnx does not define.
std::string_view dataTypeName(DataType type);
std::optional<DataType> dataTypeFromName(std::string_view name);
// Bits per element (4 for int4, 0 for strings and undefined).
int dataTypeBits(DataType type);
// An element type ONNX defines (strings included), not a number a file made up.
bool isKnownDataType(DataType type);
// Bytes of `count` elements as stored packed in raw_data (sub-byte types round up).
size_t dataTypeStorageBytes(DataType type, int64_t count);
bool isFloatingPoint(DataType type);
bool isInteger(DataType type);
bool isSignedInteger(DataType type);

}  // namespace onyx
