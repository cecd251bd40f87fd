// The values of test_data_set_N: TensorProto files, and SequenceProto/OptionalProto/MapProto files for inputs
// and outputs of those types (as onnx's backend test runner picks them: by the declared type).
#include <onnx/onnx-data_pb.h>

#include "onnx/atomic_file.h"
#include "onnx/onnx_io.h"
#include "onnx/proto_convert.h"

namespace onyx {
namespace {

using onnx_io::ExternalDataRoot;

Expected<TestValue> fromTensor(onnx::TensorProto& proto, const std::string& what) {
  auto tensor = onnx_io::tensorFromProto(proto, ExternalDataRoot{}, what);
  if (!tensor) return tensor.error();
  TestValue value;
  value.name = tensor->name();
  value.tensor = std::move(*tensor);
  return value;
}

Expected<TestValue> fromSequence(onnx::SequenceProto& proto, const std::string& what);
Expected<TestValue> fromOptional(onnx::OptionalProto& proto, const std::string& what);
Expected<TestValue> fromMap(onnx::MapProto& proto, const std::string& what);

Error sparseUnsupported(const std::string& what) {
  return makeError("holds sparse tensors, which test data sets are not read with; convert them to dense tensors",
                   what);
}

Expected<TestValue> fromSequence(onnx::SequenceProto& proto, const std::string& what) {
  TestValue value;
  value.kind = TestValue::Kind::Sequence;
  value.name = proto.name();
  if (proto.sparse_tensor_values_size() > 0) return sparseUnsupported(what);
  auto add = [&value](Expected<TestValue> element) -> Expected<void> {
    if (!element) return element.error();
    value.elements.push_back(std::move(*element));
    return {};
  };
  for (auto& tensor : *proto.mutable_tensor_values())
    if (auto ok = add(fromTensor(tensor, what)); !ok) return ok.error();
  for (auto& sequence : *proto.mutable_sequence_values())
    if (auto ok = add(fromSequence(sequence, what)); !ok) return ok.error();
  for (auto& map : *proto.mutable_map_values())
    if (auto ok = add(fromMap(map, what)); !ok) return ok.error();
  for (auto& optional : *proto.mutable_optional_values())
    if (auto ok = add(fromOptional(optional, what)); !ok) return ok.error();
  return value;
}

Expected<TestValue> fromOptional(onnx::OptionalProto& proto, const std::string& what) {
  TestValue value;
  value.kind = TestValue::Kind::Optional;
  value.name = proto.name();
  Expected<TestValue> element = makeError("");
  if (proto.has_tensor_value())
    element = fromTensor(*proto.mutable_tensor_value(), what);
  else if (proto.has_sequence_value())
    element = fromSequence(*proto.mutable_sequence_value(), what);
  else if (proto.has_map_value())
    element = fromMap(*proto.mutable_map_value(), what);
  else if (proto.has_optional_value())
    element = fromOptional(*proto.mutable_optional_value(), what);
  else if (proto.has_sparse_tensor_value())
    return sparseUnsupported(what);
  else
    return value;  // an empty optional
  if (!element) return element.error();
  value.elements.push_back(std::move(*element));
  return value;
}

Expected<TestValue> fromMap(onnx::MapProto& proto, const std::string& what) {
  TestValue value;
  value.kind = TestValue::Kind::Map;
  value.name = proto.name();
  int64_t count = 0;
  if (proto.key_type() == int32_t(DataType::String)) {
    std::vector<std::string> keys(proto.string_keys().begin(), proto.string_keys().end());
    count = int64_t(keys.size());
    value.keys = Tensor::strings({count}, std::move(keys));
  } else {
    std::vector<int64_t> keys(proto.keys().begin(), proto.keys().end());
    count = int64_t(keys.size());
    value.keys = Tensor::fromValues(DataType::Int64, {count}, keys);
  }
  auto values = fromSequence(*proto.mutable_values(), what);
  if (!values) return values.error();
  if (int64_t(values->elements.size()) != count)
    return makeError("map has " + std::to_string(count) + " keys but " + std::to_string(values->elements.size()) +
                         " values",
                     what);
  value.elements = std::move(values->elements);
  return value;
}

}  // namespace

Expected<Tensor> loadTensorFile(const std::filesystem::path& path) {
  onnx::TensorProto proto;
  if (auto parsed = onnx_io::parseProtoFile(path, proto, "tensor"); !parsed) return parsed.error();
  return onnx_io::tensorFromProto(proto, ExternalDataRoot{}, "tensor '" + proto.name() + "'");
}

Expected<TestValue> loadTestValueFile(const std::filesystem::path& path, const Type& declared) {
  switch (declared.kind()) {
    case Type::Kind::Sequence: {
      onnx::SequenceProto proto;
      if (auto parsed = onnx_io::parseProtoFile(path, proto, "sequence"); !parsed) return parsed.error();
      return fromSequence(proto, "sequence '" + proto.name() + "'");
    }
    case Type::Kind::Optional: {
      onnx::OptionalProto proto;
      if (auto parsed = onnx_io::parseProtoFile(path, proto, "optional"); !parsed) return parsed.error();
      return fromOptional(proto, "optional '" + proto.name() + "'");
    }
    case Type::Kind::Map: {
      onnx::MapProto proto;
      if (auto parsed = onnx_io::parseProtoFile(path, proto, "map"); !parsed) return parsed.error();
      return fromMap(proto, "map '" + proto.name() + "'");
    }
    case Type::Kind::SparseTensor:
      return sparseUnsupported(path.filename().string());
    case Type::Kind::None:
    case Type::Kind::Tensor:
      break;
  }
  onnx::TensorProto proto;
  if (auto parsed = onnx_io::parseProtoFile(path, proto, "tensor"); !parsed) return parsed.error();
  return fromTensor(proto, "tensor '" + proto.name() + "'");
}

Expected<void> saveTensorFile(const Tensor& tensor, const std::filesystem::path& path) {
  onnx::TensorProto proto;
  if (auto ok = onnx_io::tensorToProto(tensor, {onnx_io::TensorPlacement::Kind::Inline, {}, 0}, proto); !ok) return ok;
  auto file = onnx_io::AtomicFile::create(path);
  if (!file) return file.error();
  std::string bytes = proto.SerializeAsString();
  if (auto ok = file->write(bytes.data(), bytes.size()); !ok) return ok;
  if (auto ok = file->finish(); !ok) return ok;
  return file->rename();
}

}  // namespace onyx
