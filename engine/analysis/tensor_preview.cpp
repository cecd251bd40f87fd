#include "analysis/tensor_preview.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "exec/half.h"
#include "exec/narrow_types.h"

namespace onyx {
namespace {

template <class T>
T load(const std::byte* data, int64_t index) {
  T value;
  std::memcpy(&value, data + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return value;
}

// Element `index` of a packed sub-byte tensor (int4 and uint4 hold two per byte, int2 and uint2 four,
// low bits first), sign-extended for the signed types as the executor stores them.
uint8_t subByteElement(DataType dtype, const std::byte* data, int64_t index) {
  const int bits = dataTypeBits(dtype);
  const int perByte = 8 / bits;
  const int shift = static_cast<int>(index % perByte) * bits;
  uint8_t raw = (static_cast<uint8_t>(data[index / perByte]) >> shift) & ((1u << bits) - 1u);
  const bool isSigned = dtype == DataType::Int4 || dtype == DataType::Int2;
  if (isSigned && (raw & (1u << (bits - 1)))) raw |= static_cast<uint8_t>(0xffu << bits);
  return raw;
}

// Element `index` as a double; nullopt for types without one number per element (strings, complex).
std::optional<double> numericElement(DataType dtype, const std::byte* data, int64_t index) {
  switch (dtype) {
    case DataType::Float:
      return load<float>(data, index);
    case DataType::Double:
      return load<double>(data, index);
    case DataType::Float16:
      return exec::Half::toFloat(load<uint16_t>(data, index));
    case DataType::BFloat16: {
      exec::BFloat16 value;
      value.bits = load<uint16_t>(data, index);
      return static_cast<float>(value);
    }
    case DataType::Int8:
      return load<int8_t>(data, index);
    case DataType::Uint8:
      return load<uint8_t>(data, index);
    case DataType::Int16:
      return load<int16_t>(data, index);
    case DataType::Uint16:
      return load<uint16_t>(data, index);
    case DataType::Int32:
      return load<int32_t>(data, index);
    case DataType::Uint32:
      return load<uint32_t>(data, index);
    case DataType::Int64:
      return static_cast<double>(load<int64_t>(data, index));
    case DataType::Uint64:
      return static_cast<double>(load<uint64_t>(data, index));
    case DataType::Bool:
      return load<uint8_t>(data, index) ? 1.0 : 0.0;
    default:
      break;
  }
  if (!exec::isNarrowType(dtype)) return std::nullopt;
  if (dataTypeBits(dtype) == 8) return exec::narrowToDouble(dtype, static_cast<uint8_t>(data[index]));
  return exec::narrowToDouble(dtype, subByteElement(dtype, data, index));
}

std::string elementText(DataType dtype, const std::byte* data, int64_t index, double numeric) {
  if (dtype == DataType::Bool) return numeric != 0 ? "true" : "false";
  if (dtype == DataType::Int64) return std::to_string(load<int64_t>(data, index));
  if (dtype == DataType::Uint64) return std::to_string(load<uint64_t>(data, index));
  return formatNumber(numeric);
}

std::string complexText(DataType dtype, const std::byte* data, int64_t index) {
  double re = dtype == DataType::Complex64 ? load<float>(data, 2 * index) : load<double>(data, 2 * index);
  double im =
      dtype == DataType::Complex64 ? load<float>(data, 2 * index + 1) : load<double>(data, 2 * index + 1);
  return formatNumber(re) + (im < 0 || std::signbit(im) ? "-" : "+") + formatNumber(std::fabs(im)) + "i";
}

std::string quoted(const std::string& text) {
  constexpr size_t kMaxChars = 40;
  std::string shown = text.size() > kMaxChars ? text.substr(0, kMaxChars) + "..." : text;
  return "\"" + shown + "\"";
}

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

}  // namespace

std::string formatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

TensorPreview previewTensor(const Tensor& tensor, size_t firstCount) {
  TensorPreview preview;
  preview.dtype = std::string(dataTypeName(tensor.dtype()));
  preview.shape = dimsText(tensor.dims());
  preview.elements = tensor.elementCount();
  preview.bytes = tensor.byteSize();
  const int64_t shown = std::min<int64_t>(preview.elements, static_cast<int64_t>(firstCount));
  preview.truncated = preview.elements > shown;

  if (tensor.dtype() == DataType::String) {
    const auto& strings = tensor.stringValues();
    for (int64_t i = 0; i < shown && i < static_cast<int64_t>(strings.size()); ++i)
      preview.firstValues.push_back(quoted(strings[i]));
    return preview;
  }
  auto bytes = tensor.bytes();
  if (!bytes) {
    preview.error = bytes.error().message;
    return preview;
  }
  if (bytes->size() < dataTypeStorageBytes(tensor.dtype(), preview.elements)) {
    preview.error = "the tensor holds " + std::to_string(bytes->size()) + " bytes, fewer than its " +
                    std::to_string(preview.elements) + " elements need";
    return preview;
  }
  const std::byte* data = bytes->data();
  const DataType dtype = tensor.dtype();
  if (dtype == DataType::Complex64 || dtype == DataType::Complex128) {
    for (int64_t i = 0; i < shown; ++i) preview.firstValues.push_back(complexText(dtype, data, i));
    return preview;
  }
  // An empty tensor has no element 0 to probe the type with.
  if (preview.elements > 0 && !numericElement(dtype, data, 0)) {
    preview.error = "no preview for " + preview.dtype + " elements";
    return preview;
  }

  double min = std::numeric_limits<double>::infinity();
  double max = -min;
  double sum = 0;
  int64_t counted = 0;
  for (int64_t i = 0; i < preview.elements; ++i) {
    double value = *numericElement(dtype, data, i);
    if (i < shown) preview.firstValues.push_back(elementText(dtype, data, i, value));
    if (std::isnan(value)) {
      ++preview.nanCount;
      continue;
    }
    min = std::min(min, value);
    max = std::max(max, value);
    sum += value;
    ++counted;
  }
  if (counted > 0) {
    preview.hasStatistics = true;
    preview.min = min;
    preview.max = max;
    preview.mean = sum / static_cast<double>(counted);
  }
  return preview;
}

std::string TensorPreview::summary() const {
  std::string text = dtype + shape;
  if (!error.empty()) return text + ": " + error;
  if (hasStatistics)
    text += ", min " + formatNumber(min) + ", max " + formatNumber(max) + ", mean " + formatNumber(mean);
  if (nanCount > 0) text += ", " + std::to_string(nanCount) + " NaN";
  if (elements == 0) return text + ": empty";
  text += ": [";
  for (size_t i = 0; i < firstValues.size(); ++i) text += (i ? ", " : "") + firstValues[i];
  return text + (truncated ? ", ...]" : "]");
}

}  // namespace onyx
