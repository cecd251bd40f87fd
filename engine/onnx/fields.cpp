// Fields the IR does not model travel as serialized bytes; types convert both ways here.
#include <google/protobuf/unknown_field_set.h>

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
      type = Type::tensor(static_cast<DataType>(tensor.elem_type()),
                          tensor.has_shape() ? std::optional<Shape>(shapeFromProto(tensor.shape())) : std::nullopt);
      break;
    }
    case onnx::TypeProto::kSparseTensorType: {
      const auto& tensor = proto.sparse_tensor_type();
      type = Type::sparseTensor(static_cast<DataType>(tensor.elem_type()),
                                tensor.has_shape() ? std::optional<Shape>(shapeFromProto(tensor.shape())) : std::nullopt);
      break;
    }
    case onnx::TypeProto::kSequenceType:
      type = Type::sequence(proto.sequence_type().has_elem_type() ? typeFromProto(proto.sequence_type().elem_type())
                                                                  : Type());
      break;
    case onnx::TypeProto::kOptionalType:
      type = Type::optional(proto.optional_type().has_elem_type() ? typeFromProto(proto.optional_type().elem_type())
                                                                  : Type());
      break;
    case onnx::TypeProto::kMapType:
      type = Type::map(static_cast<DataType>(proto.map_type().key_type()),
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
