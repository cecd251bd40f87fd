#pragma once
// What a shape function sees of one node: its inputs' inferred types and small integer values, its
// attributes (through the calling node for function bodies), the opset version, and setters for the outputs.
// Broadcasting and dim equality go through here so constraints are recorded and symbols unified in one place.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "shapes/shape_inference.h"
#include "util/expected.h"

namespace onyx {

class ShapeInferencer;

class ShapeContext {
 public:
  ShapeContext(ShapeInferencer& inferencer, const Node& node, int64_t opset, const Node* functionCall);

  const Node& node() const { return *node_; }
  // Opset version imported for the node's domain (of the function, inside a function body).
  int64_t opset() const { return opset_; }

  // Inputs; absent optional inputs (and indices past the end) read as an empty InferredValue.
  size_t inputCount() const { return node_->inputCount(); }
  bool hasInput(size_t i) const { return node_->input(i) != nullptr; }
  const InferredValue& input(size_t i) const;
  const Type& inputType(size_t i) const { return input(i).type; }
  DataType inputElemType(size_t i) const { return input(i).type.elemType(); }
  const std::optional<Shape>& inputShape(size_t i) const { return input(i).type.shape(); }
  std::optional<size_t> inputRank(size_t i) const;
  const std::optional<std::vector<Dim>>& inputValue(size_t i) const { return input(i).value; }
  // The input's value when every element is static.
  std::optional<std::vector<int64_t>> inputInts(size_t i) const;
  // The elements of a float input as real numbers: its fractional `real` value, else its whole-number value.
  std::optional<std::vector<RealElement>> inputReal(size_t i) const;
  // The input's value as a constant tensor (initializer or Constant output), for float inputs like scales.
  const Tensor* inputConstant(size_t i) const;
  // A value visible from the node by name (Gradient names the values it differentiates), or null.
  const InferredValue* valueNamed(std::string_view name) const;
  // Why input i has no known rank: its own origin, or a new one naming this node.
  std::shared_ptr<const DimOrigin> rankOriginOf(size_t i) const;

  // Attributes; for a node in a function body, references resolve through the calling node.
  const Attribute* attr(std::string_view name) const;
  bool hasAttr(std::string_view name) const { return attr(name) != nullptr; }
  int64_t attrInt(std::string_view name, int64_t fallback) const;
  float attrFloat(std::string_view name, float fallback) const;
  std::string attrString(std::string_view name, std::string_view fallback = {}) const;
  std::optional<std::vector<int64_t>> attrInts(std::string_view name) const;
  const Tensor* attrTensor(std::string_view name) const;
  Graph* attrGraph(std::string_view name) const;

  // Outputs.
  size_t outputCount() const { return node_->outputCount(); }
  bool hasOutput(size_t i) const { return node_->output(i) != nullptr; }
  void setOutput(size_t i, InferredValue value);
  void setOutputType(size_t i, Type type);
  void setOutputTensor(size_t i, DataType elem, Shape shape);
  void setOutputValue(size_t i, std::vector<Dim> value);
  // Stores float elements: as whole-number dims in `value` when every element is one (an unknown element
  // becomes an unknown dim), else in `real`.
  void setOutputReal(size_t i, std::vector<RealElement> elements);
  void setOutputUnknownRank(size_t i, DataType elem, std::shared_ptr<const DimOrigin> origin);
  void setOutputConstant(size_t i, const Tensor* tensor);
  bool outputSet(size_t i) const;

  // A dim unknown because of this node.
  std::shared_ptr<const DimOrigin> origin(std::string reason) const;
  Dim unknownDim(std::string reason) const { return Dim::unknown(origin(std::move(reason))); }
  Shape unknownDims(size_t rank, const std::string& reason) const;
  // An error about this node; the message says what is inconsistent.
  Error error(std::string message) const;
  // The same for a resource-policy limit, also noted as ShapeInference::overLimit.
  Error limitError(std::string message) const;
  // "%x (from Conv 'c1' (#3))": how messages name input i and where it came from.
  std::string describeInput(size_t i) const;

  // Numpy-style broadcast of the present inputs among `inputs`. N against 1 gives N; N against M records
  // N = M and unifies them; a provable mismatch is an error naming both producers.
  Expected<Shape> broadcast(std::span<const size_t> inputs);
  Expected<Shape> broadcastShapes(const Shape& a, size_t inputA, const Shape& b, size_t inputB);
  // Requires a == b (dims that must match, like a MatMul's K): records and unifies, or errors.
  Expected<Dim> requireEqual(const Dim& a, size_t inputA, const Dim& b, size_t inputB, std::string_view what);
  // Applies the unifications made so far.
  Dim canonical(const Dim& dim) const;

  // Infers a subgraph body with the given input values; returns its outputs' values.
  std::vector<InferredValue> inferSubgraph(const Graph& body, std::vector<InferredValue> inputs);
  ShapeInferencer& inferencer() { return *inferencer_; }

  // Normalizes a possibly negative axis against `rank`; error when out of range.
  Expected<size_t> normalizeAxis(int64_t axis, size_t rank, std::string_view what = "axis") const;

 private:
  std::shared_ptr<const DimOrigin> origin_(std::string reason) const;
  ShapeInferencer* inferencer_;
  const Node* node_;
  int64_t opset_;
  const Node* functionCall_;
};

}  // namespace onyx
