#include "ir/attribute.h"

#include <sstream>

#include "ir/graph.h"

namespace onyx {

Attribute Attribute::reference(std::string name, Kind kind, std::string refAttrName) {
  Attribute attr(std::move(name), kind, std::monostate{});
  attr.refAttrName_ = std::move(refAttrName);
  return attr;
}

Graph* Attribute::getGraph() const {
  const GraphPtr* graph = std::get_if<GraphPtr>(&payload_);
  return graph ? graph->get() : nullptr;
}

std::vector<Graph*> Attribute::subgraphs() const {
  std::vector<Graph*> result;
  if (Graph* graph = getGraph()) result.push_back(graph);
  if (const auto* graphs = getGraphs())
    for (const GraphPtr& graph : *graphs) result.push_back(graph.get());
  return result;
}

namespace {

template <class T>
std::string listToString(const std::vector<T>& values) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out << ", ";
    if (i == 16) {
      out << "... " << values.size() << " values";
      break;
    }
    if constexpr (std::is_same_v<T, std::string>)
      out << '"' << values[i] << '"';
    else
      out << values[i];
  }
  out << ']';
  return out.str();
}

std::string tensorSummary(const Tensor& tensor) {
  std::string text = "<tensor " + std::string(dataTypeName(tensor.dtype())) + "[";
  for (size_t i = 0; i < tensor.dims().size(); ++i) text += (i ? ", " : "") + std::to_string(tensor.dims()[i]);
  return text + "]>";
}

}  // namespace

std::string Attribute::valueToString() const {
  if (isReference()) return "@" + refAttrName_;
  struct Printer {
    std::string operator()(std::monostate) const { return "<undefined>"; }
    std::string operator()(float v) const {
      std::ostringstream out;
      out << v;
      return out.str();
    }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(const std::string& v) const { return '"' + v + '"'; }
    std::string operator()(const Tensor& v) const { return tensorSummary(v); }
    std::string operator()(const GraphPtr& v) const { return "<graph " + (v ? v->name() : "") + ">"; }
    std::string operator()(const SparseTensor&) const { return "<sparse tensor>"; }
    std::string operator()(const Type& v) const { return v.toString(); }
    std::string operator()(const std::vector<float>& v) const { return listToString(v); }
    std::string operator()(const std::vector<int64_t>& v) const { return listToString(v); }
    std::string operator()(const std::vector<std::string>& v) const { return listToString(v); }
    std::string operator()(const std::vector<Tensor>& v) const { return std::to_string(v.size()) + " tensors"; }
    std::string operator()(const std::vector<GraphPtr>& v) const { return std::to_string(v.size()) + " graphs"; }
    std::string operator()(const std::vector<SparseTensor>& v) const {
      return std::to_string(v.size()) + " sparse tensors";
    }
    std::string operator()(const std::vector<Type>& v) const { return std::to_string(v.size()) + " types"; }
  };
  return std::visit(Printer{}, payload_);
}

int64_t attributeIntOr(const Attribute* attribute, int64_t fallback) {
  const int64_t* value = attribute ? attribute->getInt() : nullptr;
  return value ? *value : fallback;
}

float attributeFloatOr(const Attribute* attribute, float fallback) {
  const float* value = attribute ? attribute->getFloat() : nullptr;
  return value ? *value : fallback;
}

std::string attributeStringOr(const Attribute* attribute, std::string_view fallback) {
  const std::string* value = attribute ? attribute->getString() : nullptr;
  return value ? *value : std::string(fallback);
}

std::string_view attributeKindName(Attribute::Kind kind) {
  switch (kind) {
    case Attribute::Kind::Undefined: return "undefined";
    case Attribute::Kind::Float: return "float";
    case Attribute::Kind::Int: return "int";
    case Attribute::Kind::String: return "string";
    case Attribute::Kind::Tensor: return "tensor";
    case Attribute::Kind::Graph: return "graph";
    case Attribute::Kind::SparseTensor: return "sparse_tensor";
    case Attribute::Kind::TypeProto: return "type_proto";
    case Attribute::Kind::Floats: return "floats";
    case Attribute::Kind::Ints: return "ints";
    case Attribute::Kind::Strings: return "strings";
    case Attribute::Kind::Tensors: return "tensors";
    case Attribute::Kind::Graphs: return "graphs";
    case Attribute::Kind::SparseTensors: return "sparse_tensors";
    case Attribute::Kind::TypeProtos: return "type_protos";
  }
  return "unknown";
}

}  // namespace onyx
