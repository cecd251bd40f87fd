// IR -> ModelProto. Values become names again; what loading kept as serialized bytes is merged back.
#include <google/protobuf/unknown_field_set.h>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

constexpr int kNodeOverloadField = 8;
constexpr int kFunctionAttributeProtoField = 11;
constexpr int kFunctionOverloadField = 13;

void opsetImport(const OpsetImport& opset, onnx::OperatorSetIdProto& proto) {
  proto.set_domain(opset.domain);
  proto.set_version(opset.version);
  applyPresence(opset.presence, proto);
}

class ProtoWriter {
 public:
  explicit ProtoWriter(const PlacementPolicy& placement) : placement_(placement) {}

  Expected<void> graph(const Graph& graph, onnx::GraphProto& proto) {
    if (!graph.name().empty()) proto.set_name(graph.name());
    if (!graph.docString().empty()) proto.set_doc_string(graph.docString());
    for (Value* input : graph.inputs()) valueInfo(*input, *proto.add_input());
    for (Value* output : graph.outputs()) valueInfo(*output, *proto.add_output());
    for (Value* value : graph.initializers()) {
      auto* tensorProto = proto.add_initializer();
      if (auto ok = tensor(*value->initializer(), *tensorProto); !ok) return ok;
      tensorProto->set_name(value->name());
      applyTensorPresence(*value->initializer(), *tensorProto);
    }
    for (Value* value : graph.sparseInitializers()) {
      auto* sparseProto = proto.add_sparse_initializer();
      if (auto ok = sparse(*value->sparseInitializer(), *sparseProto); !ok) return ok;
      sparseProto->mutable_values()->set_name(value->name());
    }
    for (Value* value : graph.valueInfo())
      valueInfo(*value, *proto.add_value_info(), value->listedType() ? &*value->listedType() : nullptr);
    for (Node* node : graph.nodes())
      if (auto ok = this->node(*node, *proto.add_node()); !ok) return ok;
    restoreFields(graph.unknownFields(), proto);
    applyPresence(graph.presence(), proto);
    return {};
  }

  Expected<void> function(const Function& function, onnx::FunctionProto& proto) {
    proto.set_name(function.name);
    if (!function.domain.empty()) proto.set_domain(function.domain);
    if (!function.docString.empty()) proto.set_doc_string(function.docString);
    const Graph& body = *function.body;
    for (Value* input : body.inputs()) proto.add_input(input->name());
    for (Value* output : body.outputs()) proto.add_output(output->name());
    for (const std::string& name : function.attributeNames) proto.add_attribute(name);
    for (Node* node : body.nodes())
      if (auto ok = this->node(*node, *proto.add_node()); !ok) return ok;
    for (const OpsetImport& opset : function.opsetImports) opsetImport(opset, *proto.add_opset_import());
    restoreFields(function.unknownFields, proto);
    applyPresence(function.presence, proto);
    auto* unknown = proto.mutable_unknown_fields();
    for (const Attribute& attribute : function.attributeDefaults) {
      onnx::AttributeProto attributeProto;
      if (auto ok = this->attribute(attribute, attributeProto); !ok) return ok;
      unknown->AddLengthDelimited(kFunctionAttributeProtoField, attributeProto.SerializeAsString());
    }
    if (!function.overload.empty()) unknown->AddLengthDelimited(kFunctionOverloadField, function.overload);
    return {};
  }

 private:
  Expected<void> tensor(const Tensor& tensor, onnx::TensorProto& proto) {
    auto placement = placement_(tensor);
    if (!placement) return placement.error();
    return tensorToProto(tensor, *placement, proto);
  }

  Expected<void> sparse(const SparseTensor& sparse, onnx::SparseTensorProto& proto) {
    if (auto ok = tensor(sparse.values, *proto.mutable_values()); !ok) return ok;
    if (auto ok = tensor(sparse.indices, *proto.mutable_indices()); !ok) return ok;
    for (int64_t dim : sparse.dims) proto.add_dims(dim);
    return {};
  }

  // `listedType`: the type to write instead of the value's (a value_info entry's own).
  void valueInfo(const Value& value, onnx::ValueInfoProto& proto, const Type* listedType = nullptr) {
    proto.set_name(value.name());
    const Type& type = listedType ? *listedType : value.type();
    if (!type.isNone()) typeToProto(type, *proto.mutable_type());
    if (!value.docString().empty()) proto.set_doc_string(value.docString());
    restoreFields(value.unknownFields(), proto);
  }

  Expected<void> node(const Node& node, onnx::NodeProto& proto) {
    for (Value* input : node.inputs()) proto.add_input(input ? input->name() : std::string());
    for (size_t i = 0; i < node.outputCount(); ++i) {
      Value* output = node.output(i);
      proto.add_output(output ? output->name() : std::string());
    }
    if (!node.name().empty()) proto.set_name(node.name());
    proto.set_op_type(node.opType());
    if (!node.domain().empty()) proto.set_domain(node.domain());
    if (!node.docString().empty()) proto.set_doc_string(node.docString());
    for (const Attribute& attribute : node.attributes())
      if (auto ok = this->attribute(attribute, *proto.add_attribute()); !ok) return ok;
    restoreFields(node.unknownFields(), proto);
    if (!node.overload().empty())
      proto.mutable_unknown_fields()->AddLengthDelimited(kNodeOverloadField, node.overload());
    applyPresence(node.presence(), proto);
    return {};
  }

  Expected<void> attribute(const Attribute& attribute, onnx::AttributeProto& proto) {
    using Kind = Attribute::Kind;
    proto.set_name(attribute.name());
    if (attribute.kind() != Kind::Undefined)
      proto.set_type(static_cast<onnx::AttributeProto::AttributeType>(attribute.kind()));
    if (!attribute.docString().empty()) proto.set_doc_string(attribute.docString());
    if (attribute.isReference()) {
      proto.set_ref_attr_name(attribute.refAttrName());
      restoreFields(attribute.unknownFields(), proto);
      applyPresence(attribute.presence(), proto);
      return {};
    }
    const Attribute::Payload& payload = attribute.payload();
    switch (attribute.kind()) {
      case Kind::Float:
        proto.set_f(std::get<float>(payload));
        break;
      case Kind::Int:
        proto.set_i(std::get<int64_t>(payload));
        break;
      case Kind::String:
        proto.set_s(std::get<std::string>(payload));
        break;
      case Kind::Tensor:
        if (auto ok = tensor(std::get<Tensor>(payload), *proto.mutable_t()); !ok) return ok;
        break;
      case Kind::Graph:
        if (auto ok = graph(*std::get<Attribute::GraphPtr>(payload), *proto.mutable_g()); !ok) return ok;
        break;
      case Kind::SparseTensor:
        if (auto ok = sparse(std::get<SparseTensor>(payload), *proto.mutable_sparse_tensor()); !ok) return ok;
        break;
      case Kind::TypeProto:
        typeToProto(std::get<Type>(payload), *proto.mutable_tp());
        break;
      case Kind::Floats:
        for (float v : std::get<std::vector<float>>(payload)) proto.add_floats(v);
        break;
      case Kind::Ints:
        for (int64_t v : std::get<std::vector<int64_t>>(payload)) proto.add_ints(v);
        break;
      case Kind::Strings:
        for (const std::string& v : std::get<std::vector<std::string>>(payload)) proto.add_strings(v);
        break;
      case Kind::Tensors:
        for (const Tensor& t : std::get<std::vector<Tensor>>(payload))
          if (auto ok = tensor(t, *proto.add_tensors()); !ok) return ok;
        break;
      case Kind::Graphs:
        for (const auto& g : std::get<std::vector<Attribute::GraphPtr>>(payload))
          if (auto ok = graph(*g, *proto.add_graphs()); !ok) return ok;
        break;
      case Kind::SparseTensors:
        for (const SparseTensor& s : std::get<std::vector<SparseTensor>>(payload))
          if (auto ok = sparse(s, *proto.add_sparse_tensors()); !ok) return ok;
        break;
      case Kind::TypeProtos:
        for (const Type& t : std::get<std::vector<Type>>(payload)) typeToProto(t, *proto.add_type_protos());
        break;
      case Kind::Undefined:
        break;
    }
    restoreFields(attribute.unknownFields(), proto);
    applyPresence(attribute.presence(), proto);
    return {};
  }

  const PlacementPolicy& placement_;
};

}  // namespace

Expected<void> modelToProto(const Model& model, const PlacementPolicy& placement, onnx::ModelProto& proto) {
  proto.set_ir_version(model.irVersion);
  for (const OpsetImport& opset : model.opsetImports) opsetImport(opset, *proto.add_opset_import());
  if (!model.producerName.empty()) proto.set_producer_name(model.producerName);
  if (!model.producerVersion.empty()) proto.set_producer_version(model.producerVersion);
  if (!model.domain.empty()) proto.set_domain(model.domain);
  if (model.modelVersion != 0) proto.set_model_version(model.modelVersion);
  if (!model.docString.empty()) proto.set_doc_string(model.docString);
  for (const StringPair& entry : model.metadata) {
    auto* entryProto = proto.add_metadata_props();
    entryProto->set_key(entry.key);
    entryProto->set_value(entry.value);
  }
  ProtoWriter writer(placement);
  if (auto ok = writer.graph(model.graph(), *proto.mutable_graph()); !ok) return ok;
  for (const std::string& training : model.trainingInfoEntries)
    if (!proto.add_training_info()->ParseFromString(training))
      return makeError("the model's training_info cannot be written back");
  for (const auto& function : model.functions)
    if (auto ok = writer.function(*function, *proto.add_functions()); !ok) return ok;
  restoreFields(model.unknownFields, proto);
  applyPresence(model.presence, proto);
  return {};
}

Expected<void> graphToProto(const Graph& graph, const PlacementPolicy& placement, onnx::GraphProto& proto) {
  ProtoWriter writer(placement);
  return writer.graph(graph, proto);
}

}  // namespace onyx::onnx_io
