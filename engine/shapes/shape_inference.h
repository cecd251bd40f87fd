#pragma once
// Symbolic shape inference over a model. Results go to a side table keyed by Value*; the model is not
// touched (writeBack in write_back.h stores them as value_info when asked).
//
// Every dim is static, an expression over the graph-input symbols (`N`, `floor((H - 1)/2) + 1`), or unknown
// with the node and reason where it became unknown; a dim derived from an unknown one keeps that origin.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/model.h"
#include "ir/verify.h"
#include "shapes/real_value.h"

namespace onyx {

class ShapeRules;

struct InferredValue {
  Type type;
  // Elements of a small integer tensor (shapes, axes, sizes, pads), row-major; bools as 0/1.
  std::optional<std::vector<Dim>> value;
  // A small float tensor with a fractional element (a resize scale computed from the dims): its elements,
  // row-major. Set instead of `value`, which holds whole numbers only.
  std::optional<std::vector<RealElement>> real;
  // Why the rank is unknown, when the type is a tensor without a shape (or has no type at all).
  std::shared_ptr<const DimOrigin> rankOrigin;
  // The value as a constant tensor, when it is an initializer or a Constant's output (read for float
  // inputs such as Resize scales). Points into the model, which outlives the inference.
  const Tensor* constant = nullptr;
  // The types of a sequence's elements, in order, when the sequence is built statically (SequenceConstruct,
  // SequenceInsert at known positions...): SequenceAt and ConcatFromSequence read exact shapes from it.
  std::optional<std::vector<Type>> sequenceElements;
};

// A fact found while inferring: `left` equals `right` (broadcasting N against M, neither being 1).
struct ShapeConstraint {
  SymExpr left;
  SymExpr right;
  NodeId node = kNoNode;
  std::string where;  // the node, as Node::describe() gives it
};

struct ShapeInferenceOptions {
  SymBindings bindings;             // graph-input symbols fixed to sizes (`batch=1`)
  const ShapeRules* rules = nullptr;  // declarative shape rules for ops without a shape function
  // Graph inputs whose contents are known (test data, a fixed tensor the user supplies): their shapes are
  // taken from the tensors and small integer contents become values, as if they were initializers.
  // The tensors must outlive the inference.
  std::unordered_map<std::string, const Tensor*> inputValues;
  // Graph inputs whose type replaces the declared one (a sequence input's element type, read from the
  // sequence a test case feeds it).
  std::unordered_map<std::string, Type> inputTypes;
};

struct ShapeInference {
  std::unordered_map<const Value*, InferredValue> values;
  std::vector<ShapeConstraint> constraints;
  // Symbols unified by constraints, mapped to the expression they were replaced by.
  SymSubstitution unified;
  // Errors (provably inconsistent shapes) and warnings, each naming its node.
  std::vector<Diagnostic> diagnostics;
  // The first of those errors that is the resource policy's (util/limits.h: a shape input declared longer
  // than a shape can be), as `onyx shapes` prints it: commands that carry on without shapes after other
  // errors (optimize, render) stop on this one, so all three agree.
  std::optional<Error> overLimit;

  const InferredValue* find(const Value* value) const {
    auto found = values.find(value);
    return found == values.end() ? nullptr : &found->second;
  }
  bool hasErrors() const;
  const Diagnostic* firstError() const;
};

ShapeInference inferShapes(const Model& model, const ShapeInferenceOptions& options = {});

// The symbols graph inputs use for dims that have neither a value nor a dim_param in the file:
// `<input>_d<index>`, with characters outside [A-Za-z0-9_.] replaced by '_'.
std::string generatedInputSymbol(const std::string& inputName, size_t dimIndex);

}  // namespace onyx
