#include "ir/data_type.h"

#include <array>
#include <string>

namespace onyx {
namespace {

struct TypeInfo {
  DataType type;
  std::string_view name;
  int bits;
};

constexpr std::array<TypeInfo, 27> kTypes{{
    {DataType::Undefined, "undefined", 0},   {DataType::Float, "float32", 32},
    {DataType::Uint8, "uint8", 8},           {DataType::Int8, "int8", 8},
    {DataType::Uint16, "uint16", 16},        {DataType::Int16, "int16", 16},
    {DataType::Int32, "int32", 32},          {DataType::Int64, "int64", 64},
    {DataType::String, "string", 0},         {DataType::Bool, "bool", 8},
    {DataType::Float16, "float16", 16},      {DataType::Double, "float64", 64},
    {DataType::Uint32, "uint32", 32},        {DataType::Uint64, "uint64", 64},
    {DataType::Complex64, "complex64", 64},  {DataType::Complex128, "complex128", 128},
    {DataType::BFloat16, "bfloat16", 16},    {DataType::Float8E4M3FN, "float8e4m3fn", 8},
    {DataType::Float8E4M3FNUZ, "float8e4m3fnuz", 8}, {DataType::Float8E5M2, "float8e5m2", 8},
    {DataType::Float8E5M2FNUZ, "float8e5m2fnuz", 8}, {DataType::Uint4, "uint4", 4},
    {DataType::Int4, "int4", 4},             {DataType::Float4E2M1, "float4e2m1", 4},
    {DataType::Float8E8M0, "float8e8m0", 8}, {DataType::Uint2, "uint2", 2},
    {DataType::Int2, "int2", 2},
}};

const TypeInfo* find(DataType type) {
  auto index = static_cast<size_t>(type);
  return index < kTypes.size() ? &kTypes[index] : nullptr;
}

}  // namespace

std::string_view dataTypeName(DataType type) {
  if (const TypeInfo* info = find(type)) return info->name;
  static thread_local std::string unknown;
  unknown = "dtype(" + std::to_string(static_cast<int>(type)) + ")";
  return unknown;
}

std::optional<DataType> dataTypeFromName(std::string_view name) {
  if (name == "float") return DataType::Float;
  if (name == "double") return DataType::Double;
  for (const TypeInfo& info : kTypes)
    if (info.name == name) return info.type;
  return std::nullopt;
}

int dataTypeBits(DataType type) {
  const TypeInfo* info = find(type);
  return info ? info->bits : 0;
}

bool isKnownDataType(DataType type) {
  return dataTypeBits(type) > 0 || type == DataType::String;
}

size_t dataTypeStorageBytes(DataType type, int64_t count) {
  return (static_cast<size_t>(count) * static_cast<size_t>(dataTypeBits(type)) + 7) / 8;
}

bool isFloatingPoint(DataType type) {
  switch (type) {
    case DataType::Float:
    case DataType::Double:
    case DataType::Float16:
    case DataType::BFloat16:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float4E2M1:
    case DataType::Float8E8M0:
      return true;
    default:
      return false;
  }
}

bool isSignedInteger(DataType type) {
  switch (type) {
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Int4:
    case DataType::Int2:
      return true;
    default:
      return false;
  }
}

bool isInteger(DataType type) {
  switch (type) {
    case DataType::Uint8:
    case DataType::Uint16:
    case DataType::Uint32:
    case DataType::Uint64:
    case DataType::Uint4:
    case DataType::Uint2:
      return true;
    default:
      return isSignedInteger(type);
  }
}

}  // namespace onyx
