#include "shapes/value_constants.h"

#include <cmath>
#include <cstring>

namespace onyx {

namespace {

template <class T>
std::vector<double> widen(const Tensor& tensor) {
  auto values = tensor.values<T>();
  return std::vector<double>(values.begin(), values.end());
}

// IEEE half to double, for float16 scales.
double halfToDouble(uint16_t half) {
  int exponent = (half >> 10) & 0x1f;
  int mantissa = half & 0x3ff;
  double sign = (half & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

}  // namespace

std::optional<std::vector<double>> tensorAsDoubles(const Tensor& tensor) {
  if (tensor.elementCount() > 0 && tensor.bytesOrEmpty().size() < tensor.byteSize()) return std::nullopt;
  switch (tensor.dtype()) {
    case DataType::Float: return widen<float>(tensor);
    case DataType::Double: return widen<double>(tensor);
    case DataType::Int64: return widen<int64_t>(tensor);
    case DataType::Int32: return widen<int32_t>(tensor);
    case DataType::Int16: return widen<int16_t>(tensor);
    case DataType::Int8: return widen<int8_t>(tensor);
    case DataType::Uint8: return widen<uint8_t>(tensor);
    case DataType::Uint16: return widen<uint16_t>(tensor);
    case DataType::Uint32: return widen<uint32_t>(tensor);
    case DataType::Uint64: return widen<uint64_t>(tensor);
    case DataType::Bool: return widen<uint8_t>(tensor);
    case DataType::BFloat16: {
      std::vector<double> values;
      for (uint16_t bits : tensor.values<uint16_t>()) {
        uint32_t widened = static_cast<uint32_t>(bits) << 16;
        float value;
        std::memcpy(&value, &widened, sizeof value);
        values.push_back(value);
      }
      return values;
    }
    case DataType::Float16: {
      std::vector<double> values;
      for (uint16_t half : tensor.values<uint16_t>()) values.push_back(halfToDouble(half));
      return values;
    }
    default: return std::nullopt;
  }
}

std::optional<std::vector<Dim>> smallTensorValue(const Tensor& tensor) {
  int64_t count = tensor.elementCount();
  if (count > kMaxValueElements) return std::nullopt;
  if (tensor.isExternal()) return std::nullopt;
  std::vector<Dim> dims;
  dims.reserve(count);
  auto readIntegers = [&](auto typed) -> std::optional<std::vector<Dim>> {
    auto values = tensor.values<decltype(typed)>();
    if (static_cast<int64_t>(values.size()) != count) return std::nullopt;
    for (auto value : values) dims.emplace_back(static_cast<int64_t>(value));
    return dims;
  };
  switch (tensor.dtype()) {
    case DataType::Int64: return readIntegers(int64_t{});
    case DataType::Int32: return readIntegers(int32_t{});
    case DataType::Int16: return readIntegers(int16_t{});
    case DataType::Int8: return readIntegers(int8_t{});
    case DataType::Uint8: return readIntegers(uint8_t{});
    case DataType::Bool: return readIntegers(uint8_t{});
    case DataType::Uint16: return readIntegers(uint16_t{});
    case DataType::Uint32: return readIntegers(uint32_t{});
    default: break;
  }
  auto values = tensorAsDoubles(tensor);
  if (!values || static_cast<int64_t>(values->size()) != count) return std::nullopt;
  for (double value : *values) {
    if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) > 9.0e15) return std::nullopt;
    dims.emplace_back(static_cast<int64_t>(value));
  }
  return dims;
}

}  // namespace onyx
