#pragma once
// A node attribute, as onnx.proto's AttributeProto: one typed value or a list, a subgraph for If/Loop/Scan
// bodies, or a reference to an attribute of the enclosing function.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor.h"
#include "ir/type.h"

namespace onyx {

class Graph;

// Sparse tensors keep their parts; only the I/O boundary and a few kernels look inside.
struct SparseTensor {
  Tensor values;
  Tensor indices;
  std::vector<int64_t> dims;
};

class Attribute {
 public:
  // Numbered as AttributeProto.AttributeType.
  enum class Kind {
    Undefined = 0, Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5, SparseTensor = 11, TypeProto = 13,
    Floats = 6, Ints = 7, Strings = 8, Tensors = 9, Graphs = 10, SparseTensors = 12, TypeProtos = 14,
  };
  using GraphPtr = std::shared_ptr<Graph>;
  using Payload = std::variant<std::monostate, float, int64_t, std::string, onyx::Tensor, GraphPtr, SparseTensor,
                               Type, std::vector<float>, std::vector<int64_t>, std::vector<std::string>,
                               std::vector<onyx::Tensor>, std::vector<GraphPtr>, std::vector<onyx::SparseTensor>,
                               std::vector<Type>>;

  Attribute() = default;
  Attribute(std::string name, Kind kind, Payload payload)
      : name_(std::move(name)), kind_(kind), payload_(std::move(payload)) {}
  static Attribute ofFloat(std::string name, float v) { return {std::move(name), Kind::Float, v}; }
  static Attribute ofInt(std::string name, int64_t v) { return {std::move(name), Kind::Int, v}; }
  static Attribute ofString(std::string name, std::string v) { return {std::move(name), Kind::String, std::move(v)}; }
  static Attribute ofTensor(std::string name, onyx::Tensor v) { return {std::move(name), Kind::Tensor, std::move(v)}; }
  static Attribute ofGraph(std::string name, GraphPtr v) { return {std::move(name), Kind::Graph, std::move(v)}; }
  static Attribute ofFloats(std::string name, std::vector<float> v) { return {std::move(name), Kind::Floats, std::move(v)}; }
  static Attribute ofInts(std::string name, std::vector<int64_t> v) { return {std::move(name), Kind::Ints, std::move(v)}; }
  static Attribute ofStrings(std::string name, std::vector<std::string> v) {
    return {std::move(name), Kind::Strings, std::move(v)};
  }
  // An attribute of a function body node that takes its value from the calling node's attribute.
  static Attribute reference(std::string name, Kind kind, std::string refAttrName);

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  const Payload& payload() const { return payload_; }
  bool isReference() const { return !refAttrName_.empty(); }
  const std::string& refAttrName() const { return refAttrName_; }

  // Typed access; nullptr when the attribute holds another kind.
  const float* getFloat() const { return std::get_if<float>(&payload_); }
  const int64_t* getInt() const { return std::get_if<int64_t>(&payload_); }
  const std::string* getString() const { return std::get_if<std::string>(&payload_); }
  const onyx::Tensor* getTensor() const { return std::get_if<onyx::Tensor>(&payload_); }
  Graph* getGraph() const;
  const std::vector<float>* getFloats() const { return std::get_if<std::vector<float>>(&payload_); }
  const std::vector<int64_t>* getInts() const { return std::get_if<std::vector<int64_t>>(&payload_); }
  const std::vector<std::string>* getStrings() const { return std::get_if<std::vector<std::string>>(&payload_); }
  const std::vector<GraphPtr>* getGraphs() const { return std::get_if<std::vector<GraphPtr>>(&payload_); }
  // Every subgraph held, for walking into bodies.
  std::vector<Graph*> subgraphs() const;

  const std::string& docString() const { return docString_; }
  void setDocString(std::string doc) { docString_ = std::move(doc); }
  const std::string& unknownFields() const { return unknownFields_; }
  void setUnknownFields(std::string fields) { unknownFields_ = std::move(fields); }
  // Which AttributeProto fields the file had (see FieldPresence).
  FieldPresence presence() const { return presence_; }
  void setPresence(FieldPresence presence) { presence_ = presence; }

  // Short, readable value: `[3, 3]`, `1e-05`, `"NOTSET"`, `<graph body>`, `<tensor float32[64]>`.
  std::string valueToString() const;

 private:
  std::string name_;
  Kind kind_ = Kind::Undefined;
  Payload payload_;
  std::string refAttrName_;
  std::string docString_;
  std::string unknownFields_;
  FieldPresence presence_;
};

std::string_view attributeKindName(Attribute::Kind kind);

// The typed value of a possibly absent attribute; `fallback` when it is absent or holds another kind.
int64_t attributeIntOr(const Attribute* attribute, int64_t fallback);
float attributeFloatOr(const Attribute* attribute, float fallback);
std::string attributeStringOr(const Attribute* attribute, std::string_view fallback);

}  // namespace onyx
