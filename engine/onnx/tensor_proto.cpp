// TensorProto <-> Tensor. Values stored in typed fields (float_data, int32_data...) become raw little-endian
// bytes in the IR, and the tensor remembers the field so a save writes the same field back.
#include <google/protobuf/repeated_field.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <system_error>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

namespace fs = std::filesystem;

// Which typed field holds a data type's values, and how many bytes of raw storage one entry of it fills.
enum class TypedField { None, Float, Int32, Int64, Double, Uint64, String };

struct FieldLayout {
  TypedField field = TypedField::None;
  int entryBytes = 0;  // raw bytes per field entry
  bool signExtend = false;
};

FieldLayout layoutOf(DataType type) {
  switch (type) {
    case DataType::Float:
    case DataType::Complex64:
      return {TypedField::Float, 4, false};
    case DataType::Int32:
      return {TypedField::Int32, 4, true};
    case DataType::Int16:
      return {TypedField::Int32, 2, true};
    case DataType::Int8:
      return {TypedField::Int32, 1, true};
    case DataType::Uint16:
    case DataType::Float16:
    case DataType::BFloat16:
      return {TypedField::Int32, 2, false};
    case DataType::Uint8:
    case DataType::Bool:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Uint4:
    case DataType::Int4:
    case DataType::Float4E2M1:
    case DataType::Uint2:
    case DataType::Int2:
      return {TypedField::Int32, 1, false};  // sub-byte types: one packed byte per entry
    case DataType::Int64:
      return {TypedField::Int64, 8, true};
    case DataType::Double:
    case DataType::Complex128:
      return {TypedField::Double, 8, false};
    case DataType::Uint32:
      return {TypedField::Uint64, 4, false};
    case DataType::Uint64:
      return {TypedField::Uint64, 8, false};
    case DataType::String:
      return {TypedField::String, 0, false};
    default:
      return {};
  }
}

const char* fieldName(TypedField field) {
  switch (field) {
    case TypedField::Float:
      return "float_data";
    case TypedField::Int32:
      return "int32_data";
    case TypedField::Int64:
      return "int64_data";
    case TypedField::Double:
      return "double_data";
    case TypedField::Uint64:
      return "uint64_data";
    case TypedField::String:
      return "string_data";
    case TypedField::None:
      break;
  }
  return "raw_data";
}

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

// The element count, or an error for negative dims and counts too large to address.
Expected<int64_t> checkedElementCount(const std::vector<int64_t>& dims, const std::string& what) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) return makeError("tensor has a negative dimension in its shape " + dimsText(dims), what);
    if (dim != 0 && count > (int64_t{1} << 60) / dim)
      return makeError("tensor shape " + dimsText(dims) + " has too many elements to be stored", what);
    count *= dim;
  }
  return count;
}

template <class Entry>
std::string entriesToRaw(const google::protobuf::RepeatedField<Entry>& entries, int entryBytes) {
  std::string raw(entries.size() * size_t(entryBytes), '\0');
  if constexpr (sizeof(Entry) == 4 || sizeof(Entry) == 8) {
    if (size_t(entryBytes) == sizeof(Entry)) {
      if (!raw.empty()) std::memcpy(raw.data(), entries.data(), raw.size());
      return raw;
    }
  }
  for (int i = 0; i < entries.size(); ++i) {
    Entry entry = entries.Get(i);
    std::memcpy(raw.data() + size_t(i) * size_t(entryBytes), &entry, size_t(entryBytes));  // little-endian
  }
  return raw;
}

template <class Entry>
void rawToEntries(std::span<const std::byte> raw, int entryBytes, bool signExtend,
                  google::protobuf::RepeatedField<Entry>& entries) {
  size_t count = raw.size() / size_t(entryBytes);
  entries.Resize(int(count), Entry{});
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, raw.data() + i * size_t(entryBytes), size_t(entryBytes));
    int shift = 64 - 8 * entryBytes;
    Entry value;
    if constexpr (std::is_floating_point_v<Entry>) {
      std::memcpy(&value, &bits, sizeof(Entry));
    } else if (signExtend && shift > 0) {
      value = Entry(int64_t(bits << shift) >> shift);
    } else {
      value = Entry(bits);
    }
    entries.Set(int(i), value);
  }
}

template <class Field>
void releaseField(Field* field) {
  Field().Swap(field);  // Clear() would keep the capacity
}

// Checks an external location and the file behind it, without reading the bytes.
Expected<ExternalData> checkExternal(const onnx::TensorProto& proto, DataType dtype, size_t needed,
                                     const ExternalDataRoot& root, const std::string& what) {
  ExternalData ext;
  bool hasLength = false;
  for (const auto& entry : proto.external_data()) {
    const std::string& key = entry.key();
    auto number = [&](int64_t& out) -> Expected<void> {
      try {
        size_t used = 0;
        long long parsed = std::stoll(entry.value(), &used);
        if (used != entry.value().size() || parsed < 0) throw std::invalid_argument("");
        out = parsed;
        return {};
      } catch (const std::exception&) {
        return makeError("external data " + key + " '" + entry.value() + "' is not a non-negative integer",
                         what);
      }
    };
    if (key == "location") {
      ext.location = entry.value();
    } else if (key == "offset") {
      if (auto ok = number(ext.offset); !ok) return ok.error();
    } else if (key == "length") {
      if (auto ok = number(ext.length); !ok) return ok.error();
      hasLength = true;
    } else if (key == "checksum") {
      ext.checksum = entry.value();
    }
  }
  if (ext.location.empty()) return makeError("tensor is marked as external data but names no location", what);
  if (root.folder.empty())
    return makeError("tensor is stored in external data file '" + ext.location +
                         "', which needs the model's folder: load the model from its file",
                     what);
  fs::path location(ext.location);
  if (location.is_absolute())
    return makeError("external data location '" + ext.location +
                         "' is an absolute path; external data must lie in the model's folder",
                     what);
  fs::path normal = location.lexically_normal();
  if (normal.empty() || *normal.begin() == "..")
    return makeError("external data location '" + ext.location +
                         "' points outside the model's folder; external data must lie in the model's folder",
                     what);
  fs::path resolved = root.folder / normal;
  std::error_code error;
  if (!fs::exists(resolved, error))
    return makeError("external data file '" + ext.location + "' not found (looked for " + resolved.string() +
                         "); keep it next to the model",
                     what);
  fs::path realFolder = fs::canonical(root.folder, error);
  fs::path realFile = error ? fs::path() : fs::canonical(resolved, error);
  if (error)
    return makeError("external data file '" + ext.location + "' cannot be resolved: " + error.message(),
                     what);
  auto [folderEnd, fileIt] =
      std::mismatch(realFolder.begin(), realFolder.end(), realFile.begin(), realFile.end());
  if (folderEnd != realFolder.end())
    return makeError("external data location '" + ext.location + "' is a link to " + realFile.string() +
                         ", outside the model's folder; external data must lie in the model's folder",
                     what);
  if (!fs::is_regular_file(realFile, error))
    return makeError("external data location '" + ext.location + "' is not a regular file", what);
  auto fileSize = static_cast<int64_t>(fs::file_size(realFile, error));
  if (error)
    return makeError("external data file '" + ext.location + "' cannot be read: " + error.message(), what);
  int64_t length = hasLength ? ext.length : int64_t(needed);
  if (hasLength && isKnownDataType(dtype) && dtype != DataType::String && size_t(length) != needed)
    return makeError("external data length " + std::to_string(length) + " does not match the " +
                         std::to_string(needed) + " bytes its type and shape need",
                     what);
  if (ext.offset > fileSize || length > fileSize - ext.offset)
    return makeError("external data file '" + ext.location + "' is too short: the tensor needs bytes " +
                         std::to_string(ext.offset) + ".." + std::to_string(ext.offset + length) +
                         ", the file has " + std::to_string(fileSize),
                     what);
  // Without a length the data runs to the end of the file (as onnx reads it), so the rest must fit exactly.
  if (!hasLength && isKnownDataType(dtype) && dtype != DataType::String && fileSize - ext.offset != length)
    return makeError("external data without a length runs from byte " + std::to_string(ext.offset) +
                         " to the end of '" + ext.location + "': " + std::to_string(fileSize - ext.offset) +
                         " bytes, but the tensor's type and shape need " + std::to_string(needed) +
                         "; add a length entry",
                     what);
  if (!hasLength) ext.length = -1;
  ext.resolvedPath = std::move(resolved);
  return ext;
}

}  // namespace

Expected<Tensor> tensorFromProto(onnx::TensorProto& proto, const ExternalDataRoot& root,
                                 const std::string& what) {
  auto dtype = static_cast<DataType>(proto.data_type());
  FieldPresence presence = presenceOf(proto);
  // Without a known element type the bytes cannot be sized, read or checked.
  if (proto.data_type() == 0)
    return makeError("tensor has no data type (data_type 0, UNDEFINED); set the element type it holds", what);
  if (!isKnownDataType(dtype))
    return makeError("tensor has data type " + std::to_string(proto.data_type()) +
                         ", which is not an ONNX element type (1-" + std::to_string(int(DataType::Int2)) +
                         ")",
                     what);
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  auto count = checkedElementCount(dims, what);
  if (!count) return count.error();
  size_t needed = dataTypeStorageBytes(dtype, *count);
  FieldLayout layout = layoutOf(dtype);

  // Typed fields present, other than the one this data type uses, are a contradiction.
  struct Present {
    TypedField field;
    int size;
  };
  const Present present[] = {
      {TypedField::Float, proto.float_data_size()},   {TypedField::Int32, proto.int32_data_size()},
      {TypedField::Int64, proto.int64_data_size()},   {TypedField::Double, proto.double_data_size()},
      {TypedField::Uint64, proto.uint64_data_size()}, {TypedField::String, proto.string_data_size()}};
  for (const Present& p : present)
    if (p.size > 0 && p.field != layout.field)
      return makeError("tensor of type " + std::string(dataTypeName(dtype)) + " stores values in " +
                           fieldName(p.field) + ", which holds other types; re-export the model",
                       what);
  bool external = proto.data_location() == onnx::TensorProto::EXTERNAL;
  if (!external && proto.external_data_size() > 0)
    return makeError("tensor has external_data entries but data_location is not EXTERNAL", what);

  // Inline bytes the parser left in the mapped model file (InlineSpans): raw_data all the same.
  const std::pair<size_t, size_t>* span = nullptr;
  if (root.inlineSpans && root.modelFile)
    if (auto found = root.inlineSpans->spans.find(&proto); found != root.inlineSpans->spans.end())
      span = &found->second;
  const bool hasRaw = proto.has_raw_data() || span;
  Tensor tensor;
  if (external) {
    if (dtype == DataType::String)
      return makeError("string tensor is marked as external data; ONNX keeps strings only in string_data",
                       what);
    if (hasRaw) return makeError("tensor is marked as external data but also has raw_data", what);
    auto ext = checkExternal(proto, dtype, needed, root, what);
    if (!ext) return ext.error();
    tensor = Tensor::external(dtype, std::move(dims), std::move(*ext));
  } else if (hasRaw) {
    if (dtype == DataType::String) return makeError("string tensor stores its values in raw_data", what);
    for (const Present& p : present)
      if (p.size > 0)
        return makeError(std::string("tensor stores values in both raw_data and ") + fieldName(p.field),
                         what);
    if (span) {
      if (isKnownDataType(dtype) && span->second != needed)
        return makeError("tensor has " + std::to_string(span->second) + " bytes of raw_data, its type " +
                             std::string(dataTypeName(dtype)) + " and shape " + dimsText(dims) + " need " +
                             std::to_string(needed),
                         what);
      tensor = Tensor(dtype, std::move(dims), Buffer::view(root.modelFile, span->first, span->second));
    } else {
      std::string raw = std::move(*proto.mutable_raw_data());
      proto.clear_raw_data();
      if (isKnownDataType(dtype) && raw.size() != needed)
        return makeError("tensor has " + std::to_string(raw.size()) + " bytes of raw_data, its type " +
                             std::string(dataTypeName(dtype)) + " and shape " + dimsText(dims) + " need " +
                             std::to_string(needed),
                         what);
      tensor = Tensor(dtype, std::move(dims), Buffer::fromString(std::move(raw)));
    }
    tensor.setStorage(TensorStorage::Raw);
  } else if (layout.field == TypedField::String) {
    if (proto.string_data_size() != *count)
      return makeError("string tensor has " + std::to_string(proto.string_data_size()) +
                           " values, its shape " + dimsText(dims) + " needs " + std::to_string(*count),
                       what);
    std::vector<std::string> values;
    values.reserve(size_t(proto.string_data_size()));
    for (std::string& value : *proto.mutable_string_data()) values.push_back(std::move(value));
    releaseField(proto.mutable_string_data());
    tensor = Tensor::strings(std::move(dims), std::move(values));
  } else {
    // Values in a typed field (or none at all, for empty tensors).
    int entries = 0;
    for (const Present& p : present) entries += p.size;
    int64_t expectedEntries = layout.entryBytes > 0 ? int64_t(needed) / layout.entryBytes : 0;
    // Every element type that gets here has a typed field (unknown ones were refused above).
    if (layout.field != TypedField::None && entries != expectedEntries) {
      return makeError("tensor has " + std::to_string(entries) + " values in " + fieldName(layout.field) +
                           ", its type " + std::string(dataTypeName(dtype)) + " and shape " + dimsText(dims) +
                           " need " + std::to_string(expectedEntries),
                       what);
    }
    std::string raw;
    switch (layout.field) {
      case TypedField::Float:
        raw = entriesToRaw(proto.float_data(), layout.entryBytes);
        releaseField(proto.mutable_float_data());
        break;
      case TypedField::Int32:
        raw = entriesToRaw(proto.int32_data(), layout.entryBytes);
        releaseField(proto.mutable_int32_data());
        break;
      case TypedField::Int64:
        raw = entriesToRaw(proto.int64_data(), layout.entryBytes);
        releaseField(proto.mutable_int64_data());
        break;
      case TypedField::Double:
        raw = entriesToRaw(proto.double_data(), layout.entryBytes);
        releaseField(proto.mutable_double_data());
        break;
      case TypedField::Uint64:
        raw = entriesToRaw(proto.uint64_data(), layout.entryBytes);
        releaseField(proto.mutable_uint64_data());
        break;
      case TypedField::String:
      case TypedField::None:
        break;
    }
    tensor = Tensor(dtype, std::move(dims), Buffer::fromString(std::move(raw)));
    tensor.setStorage(TensorStorage::TypedField);
  }
  tensor.setName(proto.name());
  tensor.setDocString(proto.doc_string());
  tensor.setPresence(presence);
  // Unknown fields and the (deprecated, unmodelled) segment ride along as serialized bytes, and so do the
  // external_data entries as the file wrote them (their order, an explicit offset of 0, keys the IR does not
  // model): a save that leaves the bytes where they are writes them back unchanged.
  onnx::TensorProto rest;
  if (proto.has_segment()) rest.mutable_segment()->Swap(proto.mutable_segment());
  if (external) rest.mutable_external_data()->Swap(proto.mutable_external_data());
  rest.mutable_unknown_fields()->Swap(proto.mutable_unknown_fields());
  if (rest.ByteSizeLong() > 0) tensor.setUnknownFields(rest.SerializeAsString());
  return tensor;
}

Expected<void> tensorToProto(const Tensor& tensor, const TensorPlacement& placement,
                             onnx::TensorProto& proto) {
  for (int64_t dim : tensor.dims()) proto.add_dims(dim);
  proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
  if (!tensor.name().empty()) proto.set_name(tensor.name());
  if (!tensor.docString().empty()) proto.set_doc_string(tensor.docString());
  auto kind = placement.kind;
  if (kind == TensorPlacement::Kind::AsLoaded && tensor.storage() == TensorStorage::External &&
      !tensor.isExternal())
    kind = TensorPlacement::Kind::Inline;
  onnx::TensorProto kept;  // what loading kept as bytes (see tensorFromProto)
  if (!tensor.unknownFields().empty()) kept.MergeFromString(tensor.unknownFields());
  if (tensor.dtype() == DataType::String) {
    for (const std::string& value : tensor.stringValues()) proto.add_string_data(value);
  } else if (kind == TensorPlacement::Kind::AsLoaded && tensor.isExternal() &&
             kept.external_data_size() > 0) {
    proto.mutable_external_data()->Swap(kept.mutable_external_data());
    proto.set_data_location(onnx::TensorProto::EXTERNAL);
  } else if (kind == TensorPlacement::Kind::AsLoaded && tensor.isExternal()) {
    const ExternalData& ext = *tensor.externalData();
    auto add = [&proto](const char* key, const std::string& value) {
      auto* entry = proto.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add("location", ext.location);
    if (ext.offset != 0) add("offset", std::to_string(ext.offset));
    if (ext.length >= 0) add("length", std::to_string(ext.length));
    if (!ext.checksum.empty()) add("checksum", ext.checksum);
    proto.set_data_location(onnx::TensorProto::EXTERNAL);
  } else if (kind == TensorPlacement::Kind::External) {
    auto add = [&proto](const char* key, const std::string& value) {
      auto* entry = proto.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add("location", placement.location);
    add("offset", std::to_string(placement.offset));
    add("length", std::to_string(tensor.byteSize()));
    proto.set_data_location(onnx::TensorProto::EXTERNAL);
  } else {
    auto bytes = tensor.bytes();
    if (!bytes) return bytes.error();
    FieldLayout layout = layoutOf(tensor.dtype());
    bool typed = kind == TensorPlacement::Kind::AsLoaded && tensor.storage() == TensorStorage::TypedField;
    if (!typed || layout.field == TypedField::None) {
      if (!typed || !bytes->empty())
        proto.set_raw_data(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    } else {
      switch (layout.field) {
        case TypedField::Float:
          rawToEntries(*bytes, layout.entryBytes, false, *proto.mutable_float_data());
          break;
        case TypedField::Int32:
          rawToEntries(*bytes, layout.entryBytes, layout.signExtend, *proto.mutable_int32_data());
          break;
        case TypedField::Int64:
          rawToEntries(*bytes, layout.entryBytes, true, *proto.mutable_int64_data());
          break;
        case TypedField::Double:
          rawToEntries(*bytes, layout.entryBytes, false, *proto.mutable_double_data());
          break;
        case TypedField::Uint64:
          rawToEntries(*bytes, layout.entryBytes, false, *proto.mutable_uint64_data());
          break;
        case TypedField::String:
        case TypedField::None:
          break;
      }
    }
  }
  kept.clear_external_data();  // entries of where the bytes were, written above only if they stay there
  proto.MergeFrom(kept);
  applyTensorPresence(tensor, proto);
  return {};
}

void applyTensorPresence(const Tensor& tensor, onnx::TensorProto& proto) {
  // raw_data's presence follows where the bytes are written (the storage and the placement), not the record;
  // so does data_location's when the tensor moves between inline and external data.
  bool hasRawData = proto.has_raw_data();
  bool hasLocation = proto.has_data_location();
  bool moved = tensor.isExternal() != (proto.data_location() == onnx::TensorProto::EXTERNAL);
  applyPresence(tensor.presence(), proto);
  if (hasRawData != proto.has_raw_data()) {
    if (hasRawData)
      proto.set_raw_data("");
    else
      proto.clear_raw_data();
  }
  if (moved && hasLocation != proto.has_data_location()) {
    if (hasLocation)
      proto.set_data_location(onnx::TensorProto::DEFAULT);
    else
      proto.clear_data_location();
  }
}

}  // namespace onyx::onnx_io
