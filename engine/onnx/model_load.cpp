// ModelProto -> IR, through the Rewriter. Names become links: a node input resolves to the value of that name
// in its graph or an enclosing one (how If/Loop bodies see outer values); a name defined nowhere becomes an
// undefined value so a broken model can still be opened, and verify() reports it.
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <memory>

#include "ir/module_path.h"
#include "ir/nesting.h"
#include "ir/rewriter.h"
#include "onnx/node_metadata.h"
#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

// Takes every length-delimited unknown field with this number out of the set (fields onnx 1.12 does not
// know but the IR models, such as NodeProto.overload).
std::vector<std::string> takeUnknownStrings(UnknownFieldSet& set, int number) {
  std::vector<std::string> values;
  for (int i = 0; i < set.field_count();) {
    const UnknownField& field = set.field(i);
    if (field.number() == number && field.type() == UnknownField::TYPE_LENGTH_DELIMITED) {
      values.push_back(field.length_delimited());
      set.DeleteSubrange(i, 1);
    } else {
      ++i;
    }
  }
  return values;
}

std::string describeNode(const onnx::NodeProto& node, int index) {
  std::string op = node.domain().empty() || node.domain() == "ai.onnx"
                       ? node.op_type()
                       : node.domain() + "::" + node.op_type();
  return "node " + op + (node.name().empty() ? "" : " '" + node.name() + "'") + " (index " +
         std::to_string(index) + ")";
}

const char* attributeTypeName(int type) {
  switch (type) {
    case onnx::AttributeProto::FLOAT:
      return "FLOAT";
    case onnx::AttributeProto::INT:
      return "INT";
    case onnx::AttributeProto::STRING:
      return "STRING";
    case onnx::AttributeProto::TENSOR:
      return "TENSOR";
    case onnx::AttributeProto::GRAPH:
      return "GRAPH";
    case onnx::AttributeProto::SPARSE_TENSOR:
      return "SPARSE_TENSOR";
    case onnx::AttributeProto::TYPE_PROTO:
      return "TYPE_PROTO";
    case onnx::AttributeProto::FLOATS:
      return "FLOATS";
    case onnx::AttributeProto::INTS:
      return "INTS";
    case onnx::AttributeProto::STRINGS:
      return "STRINGS";
    case onnx::AttributeProto::TENSORS:
      return "TENSORS";
    case onnx::AttributeProto::GRAPHS:
      return "GRAPHS";
    case onnx::AttributeProto::SPARSE_TENSORS:
      return "SPARSE_TENSORS";
    case onnx::AttributeProto::TYPE_PROTOS:
      return "TYPE_PROTOS";
    default:
      return "UNDEFINED";
  }
}

// The value fields an AttributeProto has set, as (attribute type, field name).
std::vector<std::pair<int, const char*>> presentValues(const onnx::AttributeProto& a) {
  std::vector<std::pair<int, const char*>> present;
  if (a.has_f()) present.emplace_back(onnx::AttributeProto::FLOAT, "a float (f)");
  if (a.has_i()) present.emplace_back(onnx::AttributeProto::INT, "an int (i)");
  if (a.has_s()) present.emplace_back(onnx::AttributeProto::STRING, "a string (s)");
  if (a.has_t()) present.emplace_back(onnx::AttributeProto::TENSOR, "a tensor (t)");
  if (a.has_g()) present.emplace_back(onnx::AttributeProto::GRAPH, "a graph (g)");
  if (a.has_sparse_tensor()) present.emplace_back(onnx::AttributeProto::SPARSE_TENSOR, "a sparse tensor");
  if (a.has_tp()) present.emplace_back(onnx::AttributeProto::TYPE_PROTO, "a type (tp)");
  if (a.floats_size()) present.emplace_back(onnx::AttributeProto::FLOATS, "floats");
  if (a.ints_size()) present.emplace_back(onnx::AttributeProto::INTS, "ints");
  if (a.strings_size()) present.emplace_back(onnx::AttributeProto::STRINGS, "strings");
  if (a.tensors_size()) present.emplace_back(onnx::AttributeProto::TENSORS, "tensors");
  if (a.graphs_size()) present.emplace_back(onnx::AttributeProto::GRAPHS, "graphs");
  if (a.sparse_tensors_size()) present.emplace_back(onnx::AttributeProto::SPARSE_TENSORS, "sparse tensors");
  if (a.type_protos_size()) present.emplace_back(onnx::AttributeProto::TYPE_PROTOS, "types (type_protos)");
  return present;
}

bool isListType(int type) {
  return type == onnx::AttributeProto::FLOATS || type == onnx::AttributeProto::INTS ||
         type == onnx::AttributeProto::STRINGS || type == onnx::AttributeProto::TENSORS ||
         type == onnx::AttributeProto::GRAPHS || type == onnx::AttributeProto::SPARSE_TENSORS ||
         type == onnx::AttributeProto::TYPE_PROTOS;
}

class ModelBuilder {
 public:
  ModelBuilder(Model& model, const ExternalDataRoot& root) : model_(model), rw_(model), root_(root) {}

  Expected<void> buildGraph(Graph& graph, onnx::GraphProto& proto, const std::string& where) {
    onnx::GraphProto rest;
    rest.mutable_quantization_annotation()->Swap(proto.mutable_quantization_annotation());
    rest.mutable_unknown_fields()->Swap(proto.mutable_unknown_fields());
    rw_.setGraphMetadata(graph, proto.name(), proto.doc_string(),
                         rest.ByteSizeLong() ? rest.SerializeAsString() : "", presenceOf(proto));

    std::vector<Value*> inputs;
    inputs.reserve(size_t(proto.input_size()));
    for (auto& input : *proto.mutable_input()) {
      Value* value = rw_.addUndefinedValue(graph, input.name());
      if (input.has_type()) rw_.setType(value, typeFromProto(input.type()));
      setValueInfoExtras(value, false, input);
      inputs.push_back(value);
    }
    rw_.setGraphInputs(graph, std::move(inputs));

    // Each TensorProto is deleted as soon as it is converted, so the proto and the IR never both hold every
    // initializer (a million small ones took 1.3 GB at the peak). Releasing the last is the only cheap
    // removal, so the list is reversed first and consumed from its end: file order.
    auto& initializers = *proto.mutable_initializer();
    for (int i = 0, j = initializers.size() - 1; i < j; ++i, --j) initializers.SwapElements(i, j);
    while (!initializers.empty()) {
      std::unique_ptr<onnx::TensorProto> released(initializers.ReleaseLast());
      onnx::TensorProto& initializer = *released;
      auto tensor =
          tensorFromProto(initializer, root_, "initializer '" + initializer.name() + "' in " + where);
      if (!tensor) return tensor.error();
      Value* existing = graph.findValue(initializer.name());
      if (existing && existing->isGraphInput() && !existing->isInitializer())
        rw_.setInitializer(existing, std::move(*tensor));
      else
        rw_.addInitializer(graph, initializer.name(), std::move(*tensor));
    }

    for (auto& sparse : *proto.mutable_sparse_initializer()) {
      std::string name = sparse.values().name();
      auto tensor = sparseFromProto(sparse, "sparse initializer '" + name + "' in " + where);
      if (!tensor) return tensor.error();
      rw_.addSparseInitializer(graph, name, std::move(*tensor));
    }

    int index = 0;
    for (auto& node : *proto.mutable_node()) {
      if (auto built = buildNode(graph, node, index, where); !built) return built.error();
      ++index;
      // Free the converted node now rather than with the whole proto, so the proto and the IR do not both
      // hold every node at the peak. Bodies stay: finish() still reads their outputs and value_info.
      bool hasBody =
          std::any_of(node.attribute().begin(), node.attribute().end(),
                      [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
      if (!hasBody) onnx::NodeProto().Swap(&node);
    }
    pendingGraphs_.push_back({&graph, &proto});
    return {};
  }

  Expected<void> buildFunction(Function& function, onnx::FunctionProto& proto) {
    function.name = proto.name();
    function.domain = proto.domain();
    function.docString = proto.doc_string();
    function.presence = presenceOf(proto);
    function.attributeNames.assign(proto.attribute().begin(), proto.attribute().end());
    for (const auto& opset : proto.opset_import())
      function.opsetImports.push_back({opset.domain(), opset.version(), presenceOf(opset)});
    std::string where = "function '" + proto.domain() + "." + proto.name() + "'";
    UnknownFieldSet& unknown = *proto.mutable_unknown_fields();
    // FunctionProto.attribute_proto (11) and overload (13) came after onnx 1.12.
    for (const std::string& bytes : takeUnknownStrings(unknown, kFunctionAttributeProtoField)) {
      onnx::AttributeProto attribute;
      if (!attribute.ParseFromString(bytes)) return makeError("an attribute default cannot be parsed", where);
      auto converted = attributeFromProto(attribute, *function.body, where);
      if (!converted) return converted.error();
      function.attributeDefaults.push_back(std::move(*converted));
    }
    auto overloads = takeUnknownStrings(unknown, kFunctionOverloadField);
    if (!overloads.empty()) function.overload = overloads.back();
    function.unknownFields = serializeUnknownFields(proto);

    Graph& body = *function.body;
    std::vector<Value*> inputs;
    for (const std::string& name : proto.input()) inputs.push_back(rw_.addUndefinedValue(body, name));
    rw_.setGraphInputs(body, std::move(inputs));
    int index = 0;
    for (auto& node : *proto.mutable_node()) {
      if (auto built = buildNode(body, node, index, where); !built) return built.error();
      ++index;
    }
    pendingFunctions_.push_back({&body, &proto});
    return {};
  }

  // Links what could not be linked while building: names used before (or above) their definition, graph
  // outputs and value_info entries.
  void finish() {
    for (auto& [node, names] : pendingInputs_) {
      std::vector<Value*> inputs = node->inputs();
      for (auto& [index, name] : names) inputs[index] = resolveOrUndefined(*node->graph(), name);
      rw_.setInputs(node, std::move(inputs));
    }
    for (auto& [graph, proto] : pendingFunctions_) {
      std::vector<Value*> outputs;
      for (const std::string& name : proto->output()) outputs.push_back(resolveOrUndefined(*graph, name));
      rw_.setGraphOutputs(*graph, std::move(outputs));
    }
    for (auto& [graph, proto] : pendingGraphs_) {
      std::vector<Value*> outputs;
      for (auto& output : *proto->mutable_output()) {
        Value* value = resolveOrUndefined(*graph, output.name());
        if (output.has_type() && value->type().isNone()) rw_.setType(value, typeFromProto(output.type()));
        setValueInfoExtras(value, value->hasValueInfo(), output);
        outputs.push_back(value);
      }
      rw_.setGraphOutputs(*graph, std::move(outputs));
      for (auto& info : *proto->mutable_value_info()) {
        Value* value = graph->findValue(info.name());
        if (!value) value = rw_.addUndefinedValue(*graph, info.name());
        if (info.has_type()) setListedType(value, typeFromProto(info.type()));
        rw_.setValueInfo(value, true, info.doc_string(), serializeUnknownFields(info));
      }
    }
  }

  static constexpr int kNodeOverloadField = 8;
  static constexpr int kFunctionAttributeProtoField = 11;
  static constexpr int kFunctionOverloadField = 13;

 private:
  void setValueInfoExtras(Value* value, bool listed, onnx::ValueInfoProto& info) {
    std::string unknown = serializeUnknownFields(info);
    if (!info.doc_string().empty() || !unknown.empty())
      rw_.setValueInfo(value, listed, info.doc_string(), std::move(unknown));
  }

  // A value_info type is the value's type, unless the value is a graph input or output declared with
  // another type: that one stays its type (it is the interface), the entry keeps its own.
  void setListedType(Value* value, Type listed) {
    // An entry whose type has no kind (only a denotation, say) says nothing: kept as a listed type, the first
    // save wrote it untyped and the second the value's type (fuzz_load: "save is not stable").
    if (listed.isNone()) return;
    bool declared = value->isGraphInput() ||
                    std::any_of(value->uses().begin(), value->uses().end(),
                                [](const Use& use) { return use.graphOutput != nullptr; });
    if (declared && !value->type().isNone() && value->type() != listed)
      rw_.setListedType(value, std::move(listed));
    else
      rw_.setType(value, std::move(listed));
  }

  Value* resolveOrUndefined(Graph& graph, const std::string& name) {
    if (Value* value = graph.resolve(name)) return value;
    return rw_.addUndefinedValue(graph, name);
  }

  Expected<SparseTensor> sparseFromProto(onnx::SparseTensorProto& proto, const std::string& what) {
    SparseTensor sparse;
    auto values = tensorFromProto(*proto.mutable_values(), root_, what + ", values");
    if (!values) return values.error();
    auto indices = tensorFromProto(*proto.mutable_indices(), root_, what + ", indices");
    if (!indices) return indices.error();
    sparse.values = std::move(*values);
    sparse.indices = std::move(*indices);
    sparse.dims.assign(proto.dims().begin(), proto.dims().end());
    return sparse;
  }

  Expected<void> buildNode(Graph& graph, onnx::NodeProto& proto, int index, const std::string& where) {
    std::string nodeWhere = describeNode(proto, index) + " in " + where;
    Rewriter::NodeSpec spec;
    spec.opType = proto.op_type();
    spec.domain = proto.domain();
    spec.name = proto.name();
    spec.docString = proto.doc_string();
    spec.presence = presenceOf(proto);
    for (auto& attribute : *proto.mutable_attribute()) {
      auto converted = attributeFromProto(attribute, graph, nodeWhere);
      if (!converted) return converted.error();
      spec.attributes.push_back(std::move(*converted));
    }
    std::vector<std::pair<size_t, std::string>> pending;
    for (const std::string& name : proto.input()) {
      Value* value = name.empty() ? nullptr : graph.findValue(name);
      if (!name.empty() && !value) pending.emplace_back(spec.inputs.size(), name);
      spec.inputs.push_back(value);
    }
    spec.outputNames.assign(proto.output().begin(), proto.output().end());
    auto overloads = takeUnknownStrings(*proto.mutable_unknown_fields(), kNodeOverloadField);
    if (!overloads.empty()) spec.overload = overloads.back();
    spec.unknownFields = serializeUnknownFields(proto);
    spec.modulePath = modulePathFromMetadata(metadataPropsFromUnknownFields(spec.unknownFields));
    Node* node = rw_.addNode(graph, std::move(spec));
    if (!pending.empty()) pendingInputs_.emplace_back(node, std::move(pending));
    return {};
  }

  Expected<Attribute> attributeFromProto(onnx::AttributeProto& proto, Graph& owner,
                                         const std::string& where) {
    using A = onnx::AttributeProto;
    std::string what = "attribute '" + proto.name() + "' of " + where;
    FieldPresence presence = presenceOf(proto);
    auto present = presentValues(proto);
    int type = proto.type();
    if (!proto.ref_attr_name().empty()) {
      Attribute attribute =
          Attribute::reference(proto.name(), static_cast<Attribute::Kind>(type), proto.ref_attr_name());
      attribute.setDocString(proto.doc_string());
      attribute.setUnknownFields(serializeUnknownFields(proto));
      attribute.setPresence(presence);
      return attribute;
    }
    if (type == A::UNDEFINED) {
      if (present.size() > 1)
        return makeError("attribute has no type and holds several values (" + std::string(present[0].second) +
                             " and " + present[1].second + "); set its type field",
                         what);
      if (!present.empty()) type = present[0].first;
    } else {
      for (const auto& [kind, field] : present)
        if (kind != type)
          return makeError("attribute is declared " + std::string(attributeTypeName(type)) + " but holds " +
                               field + "; its type field must match its value",
                           what);
      if (present.empty() && !isListType(type))
        return makeError(
            "attribute is declared " + std::string(attributeTypeName(type)) + " but holds no value", what);
    }
    Attribute::Payload payload;
    switch (type) {
      case A::FLOAT:
        payload = proto.f();
        break;
      case A::INT:
        payload = int64_t(proto.i());
        break;
      case A::STRING:
        payload = std::move(*proto.mutable_s());
        break;
      case A::TENSOR: {
        auto tensor = tensorFromProto(*proto.mutable_t(), root_, what);
        if (!tensor) return tensor.error();
        payload = std::move(*tensor);
        break;
      }
      case A::GRAPH: {
        auto body = std::make_shared<Graph>(&model_, &owner);
        if (auto built = buildGraph(*body, *proto.mutable_g(), "graph '" + proto.g().name() + "' of " + what);
            !built)
          return built.error();
        payload = std::move(body);
        break;
      }
      case A::SPARSE_TENSOR: {
        auto sparse = sparseFromProto(*proto.mutable_sparse_tensor(), what);
        if (!sparse) return sparse.error();
        payload = std::move(*sparse);
        break;
      }
      case A::TYPE_PROTO:
        payload = typeFromProto(proto.tp());
        break;
      case A::FLOATS:
        payload = std::vector<float>(proto.floats().begin(), proto.floats().end());
        break;
      case A::INTS:
        payload = std::vector<int64_t>(proto.ints().begin(), proto.ints().end());
        break;
      case A::STRINGS: {
        std::vector<std::string> strings;
        for (std::string& s : *proto.mutable_strings()) strings.push_back(std::move(s));
        payload = std::move(strings);
        break;
      }
      case A::TENSORS: {
        std::vector<Tensor> tensors;
        for (auto& tensorProto : *proto.mutable_tensors()) {
          auto tensor = tensorFromProto(tensorProto, root_, what);
          if (!tensor) return tensor.error();
          tensors.push_back(std::move(*tensor));
        }
        payload = std::move(tensors);
        break;
      }
      case A::GRAPHS: {
        std::vector<Attribute::GraphPtr> graphs;
        for (auto& graphProto : *proto.mutable_graphs()) {
          auto body = std::make_shared<Graph>(&model_, &owner);
          if (auto built = buildGraph(*body, graphProto, "graph '" + graphProto.name() + "' of " + what);
              !built)
            return built.error();
          graphs.push_back(std::move(body));
        }
        payload = std::move(graphs);
        break;
      }
      case A::SPARSE_TENSORS: {
        std::vector<SparseTensor> sparses;
        for (auto& sparseProto : *proto.mutable_sparse_tensors()) {
          auto sparse = sparseFromProto(sparseProto, what);
          if (!sparse) return sparse.error();
          sparses.push_back(std::move(*sparse));
        }
        payload = std::move(sparses);
        break;
      }
      case A::TYPE_PROTOS: {
        std::vector<Type> types;
        for (const auto& typeProto : proto.type_protos()) types.push_back(typeFromProto(typeProto));
        payload = std::move(types);
        break;
      }
      default:
        break;
    }
    Attribute attribute(proto.name(), static_cast<Attribute::Kind>(type), std::move(payload));
    attribute.setDocString(proto.doc_string());
    attribute.setUnknownFields(serializeUnknownFields(proto));
    attribute.setPresence(presence);
    return attribute;
  }

  Model& model_;
  Rewriter rw_;
  const ExternalDataRoot& root_;
  std::vector<std::pair<Node*, std::vector<std::pair<size_t, std::string>>>> pendingInputs_;
  std::vector<std::pair<Graph*, onnx::GraphProto*>> pendingGraphs_;
  std::vector<std::pair<Graph*, onnx::FunctionProto*>> pendingFunctions_;
};

}  // namespace

Expected<std::unique_ptr<Model>> modelFromProto(onnx::ModelProto& proto, const ExternalDataRoot& root) {
  if (!proto.has_graph())
    return makeError("the file has no graph: it is not an ONNX model, or it is truncated");
  if (proto.graph().node_size() == 0 && proto.graph().output_size() == 0)
    return makeError("the model's graph is empty: it has no nodes and no outputs");
  auto model = std::make_unique<Model>();
  model->irVersion = proto.ir_version();
  for (const auto& opset : proto.opset_import())
    model->opsetImports.push_back({opset.domain(), opset.version(), presenceOf(opset)});
  model->presence = presenceOf(proto);
  model->producerName = proto.producer_name();
  model->producerVersion = proto.producer_version();
  model->domain = proto.domain();
  model->modelVersion = proto.model_version();
  model->docString = proto.doc_string();
  for (const auto& entry : proto.metadata_props()) model->metadata.push_back({entry.key(), entry.value()});
  for (const auto& training : proto.training_info())
    model->trainingInfoEntries.push_back(training.SerializeAsString());
  model->unknownFields = serializeUnknownFields(proto);

  ModelBuilder builder(*model, root);
  for (auto& functionProto : *proto.mutable_functions()) {
    auto function = std::make_shared<Function>();
    function->body = std::make_shared<Graph>(model.get());
    if (auto built = builder.buildFunction(*function, functionProto); !built) return built.error();
    model->functions.push_back(std::move(function));
  }
  const std::string& name = proto.graph().name();
  if (auto built = builder.buildGraph(model->graph(), *proto.mutable_graph(), "graph '" + name + "'"); !built)
    return built.error();
  builder.finish();
  // Everything after loading walks bodies and function calls recursively: a recursive function or nesting
  // past the limit is refused here, naming the cycle or the node (issue #25 C3).
  if (auto nesting = checkNesting(*model); !nesting) return nesting.error();
  return model;
}

}  // namespace onyx::onnx_io
