// Fields the IR does not model travel as serialized bytes; types convert both ways here.
#include <google/protobuf/unknown_field_set.h>

#include <cstring>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {

std::string serializeUnknownFields(const google::protobuf::Message& message) {
  const auto& unknown = message.GetReflection()->GetUnknownFields(message);
  if (unknown.empty()) return {};
  std::string bytes;
  unknown.SerializeToString(&bytes);
  return bytes;
}

void restoreFields(const std::string& serialized, google::protobuf::Message& message) {
  // Parsing appends: known fields land in their slots, fields newer than onnx 1.12 among the unknown ones.
  if (!serialized.empty()) message.MergeFromString(serialized);
}

FieldPresence presenceOf(const google::protobuf::Message& message) {
  std::vector<const google::protobuf::FieldDescriptor*> present;
  message.GetReflection()->ListFields(message, &present);
  uint64_t bits = 0;
  for (const auto* field : present)
    if (!field->is_repeated() && field->number() < 64) bits |= uint64_t(1) << field->number();
  return FieldPresence::loaded(bits);
}

namespace {

using google::protobuf::FieldDescriptor;

bool holdsDefault(const google::protobuf::Message& message, const FieldDescriptor* field) {
  const auto* reflection = message.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return reflection->GetInt32(message, field) == field->default_value_int32();
    case FieldDescriptor::CPPTYPE_INT64:
      return reflection->GetInt64(message, field) == field->default_value_int64();
    case FieldDescriptor::CPPTYPE_UINT32:
      return reflection->GetUInt32(message, field) == field->default_value_uint32();
    case FieldDescriptor::CPPTYPE_UINT64:
      return reflection->GetUInt64(message, field) == field->default_value_uint64();
    case FieldDescriptor::CPPTYPE_FLOAT: {
      float value = reflection->GetFloat(message, field), fallback = field->default_value_float();
      return std::memcmp(&value, &fallback, sizeof value) == 0;  // -0 is not 0: it is written
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      double value = reflection->GetDouble(message, field), fallback = field->default_value_double();
      return std::memcmp(&value, &fallback, sizeof value) == 0;
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection->GetBool(message, field) == field->default_value_bool();
    case FieldDescriptor::CPPTYPE_ENUM:
      return reflection->GetEnumValue(message, field) == field->default_value_enum()->number();
    case FieldDescriptor::CPPTYPE_STRING:
      return reflection->GetString(message, field) == field->default_value_string();
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return reflection->GetMessage(message, field).ByteSizeLong() == 0;
  }
  return false;
}

void setToDefault(google::protobuf::Message& message, const FieldDescriptor* field) {
  const auto* reflection = message.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return reflection->SetInt32(&message, field, field->default_value_int32());
    case FieldDescriptor::CPPTYPE_INT64:
      return reflection->SetInt64(&message, field, field->default_value_int64());
    case FieldDescriptor::CPPTYPE_UINT32:
      return reflection->SetUInt32(&message, field, field->default_value_uint32());
    case FieldDescriptor::CPPTYPE_UINT64:
      return reflection->SetUInt64(&message, field, field->default_value_uint64());
    case FieldDescriptor::CPPTYPE_FLOAT:
      return reflection->SetFloat(&message, field, field->default_value_float());
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return reflection->SetDouble(&message, field, field->default_value_double());
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection->SetBool(&message, field, field->default_value_bool());
    case FieldDescriptor::CPPTYPE_ENUM:
      return reflection->SetEnumValue(&message, field, field->default_value_enum()->number());
    case FieldDescriptor::CPPTYPE_STRING:
      return reflection->SetString(&message, field, field->default_value_string());
    case FieldDescriptor::CPPTYPE_MESSAGE:
      reflection->MutableMessage(&message, field);
      return;
  }
}

}  // namespace

void applyPresence(FieldPresence presence, google::protobuf::Message& message) {
  if (!presence.isRecorded()) return;
  const auto* descriptor = message.GetDescriptor();
  const auto* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->is_repeated() || field->number() >= 64) continue;
    bool wanted = presence.has(field->number());
    if (wanted == reflection->HasField(message, field)) continue;
    if (!wanted) {
      if (holdsDefault(message, field)) reflection->ClearField(&message, field);
      continue;
    }
    // Setting one member of a oneof clears the others: one that holds a value wins over the record.
    const auto* oneof = field->containing_oneof();
    if (oneof && reflection->HasOneof(message, oneof)) continue;
    setToDefault(message, field);
  }
}

namespace {

Shape shapeFromProto(const onnx::TensorShapeProto& proto) {
  Shape shape;
  shape.reserve(size_t(proto.dim_size()));
  for (const auto& dimProto : proto.dim()) {
    Dim dim;
    if (dimProto.has_dim_value())
      dim = Dim(dimProto.dim_value());
    else if (dimProto.has_dim_param() && !dimProto.dim_param().empty())
      dim = Dim::symbol(dimProto.dim_param());
    if (dimProto.has_denotation()) dim.setDenotation(dimProto.denotation());
    shape.push_back(std::move(dim));
  }
  return shape;
}

void shapeToProto(const Shape& shape, onnx::TensorShapeProto& proto) {
  for (const Dim& dim : shape) {
    auto* dimProto = proto.add_dim();
    if (auto value = dim.value())
      dimProto->set_dim_value(*value);
    else if (dim.isSymbolic())
      dimProto->set_dim_param(dim.expr().isSymbol() ? dim.expr().symbolName() : dim.expr().toString());
    if (!dim.denotation().empty()) dimProto->set_denotation(dim.denotation());
  }
}

}  // namespace

Type typeFromProto(const onnx::TypeProto& proto) {
  Type type;
  switch (proto.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const auto& tensor = proto.tensor_type();
      type = Type::tensor(
          static_cast<DataType>(tensor.elem_type()),
          tensor.has_shape() ? std::optional<Shape>(shapeFromProto(tensor.shape())) : std::nullopt);
      break;
    }
    case onnx::TypeProto::kSparseTensorType: {
      const auto& tensor = proto.sparse_tensor_type();
      type = Type::sparseTensor(
          static_cast<DataType>(tensor.elem_type()),
          tensor.has_shape() ? std::optional<Shape>(shapeFromProto(tensor.shape())) : std::nullopt);
      break;
    }
    case onnx::TypeProto::kSequenceType:
      type = Type::sequence(
          proto.sequence_type().has_elem_type() ? typeFromProto(proto.sequence_type().elem_type()) : Type());
      break;
    case onnx::TypeProto::kOptionalType:
      type = Type::optional(
          proto.optional_type().has_elem_type() ? typeFromProto(proto.optional_type().elem_type()) : Type());
      break;
    case onnx::TypeProto::kMapType:
      type = Type::map(
          static_cast<DataType>(proto.map_type().key_type()),
          proto.map_type().has_value_type() ? typeFromProto(proto.map_type().value_type()) : Type());
      break;
    default:
      break;
  }
  if (proto.has_denotation()) type.setDenotation(proto.denotation());
  return type;
}

void typeToProto(const Type& type, onnx::TypeProto& proto) {
  switch (type.kind()) {
    case Type::Kind::None:
      break;
    case Type::Kind::Tensor: {
      auto* tensor = proto.mutable_tensor_type();
      tensor->set_elem_type(static_cast<int32_t>(type.elemType()));
      if (type.shape()) shapeToProto(*type.shape(), *tensor->mutable_shape());
      break;
    }
    case Type::Kind::SparseTensor: {
      auto* tensor = proto.mutable_sparse_tensor_type();
      tensor->set_elem_type(static_cast<int32_t>(type.elemType()));
      if (type.shape()) shapeToProto(*type.shape(), *tensor->mutable_shape());
      break;
    }
    case Type::Kind::Sequence: {
      auto* sequence = proto.mutable_sequence_type();
      if (!type.element().isNone()) typeToProto(type.element(), *sequence->mutable_elem_type());
      break;
    }
    case Type::Kind::Optional: {
      auto* optional = proto.mutable_optional_type();
      if (!type.element().isNone()) typeToProto(type.element(), *optional->mutable_elem_type());
      break;
    }
    case Type::Kind::Map: {
      auto* map = proto.mutable_map_type();
      map->set_key_type(static_cast<int32_t>(type.elemType()));
      if (!type.element().isNone()) typeToProto(type.element(), *map->mutable_value_type());
      break;
    }
  }
  if (!type.denotation().empty()) proto.set_denotation(type.denotation());
}

}  // namespace onyx::onnx_io
