#pragma once
// Small queries and edits the pattern and fusion passes share: single consumers, constant operands, fresh
// names, and replacing a matched pattern's result while keeping graph output names stable.
#include <optional>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace onyx::passes {

bool isGraphOutput(const Value* value);
// The node reading `value` when it is its only use (a graph output counts as a use); null otherwise.
Node* soleConsumer(const Value* value);
// The producer of `value` when it is a node of `op` in ai.onnx, or null.
Node* producerOf(const Value* value, std::string_view op);
bool isOp(const Node* node, std::string_view op);

// The constant behind `value`: an initializer (not an overridable graph input) or a Constant node's tensor.
const Tensor* constantOf(const Value* value);
// Elements of a float32 or float64 constant as doubles; of an integer constant as int64. nullopt otherwise.
std::optional<std::vector<double>> constantReals(const Value* value);
std::optional<std::vector<int64_t>> constantInts(const Value* value);
// The constant's single value when it holds one element (any rank).
std::optional<double> constantScalar(const Value* value);

// The value's shape: inferred (context.shapes()) first, else its declared type; nullopt when the rank is
// unknown.
std::optional<Shape> shapeOf(PassContext& context, const Value* value);
DataType elemTypeOf(PassContext& context, const Value* value);
// Axes in [0, rank); nullopt when one is out of range.
std::optional<std::vector<int64_t>> normalizeAxes(std::vector<int64_t> axes, int64_t rank);

// A value name not used in `graph` or its enclosing graphs: `base`, else `base_1`, `base_2`...
std::string freshName(const Graph& graph, const std::string& base);
std::string freshNodeName(const Graph& graph, const std::string& base);

// Why `result` (the output of a matched pattern) cannot be replaced by `replacement`: a graph output would
// change its name to that of a graph input or of another graph output. Empty when it can.
std::string replacementBlocker(const Value* result, const Value* replacement);
// Makes every use of `result` use `replacement`, removes the nodes in `dead` that are then unused (in order),
// and gives `replacement` the name of `result` when `result` was a graph output. replacementBlocker must be
// empty.
void replaceResult(Rewriter& rewriter, Value* result, Value* replacement, const std::vector<Node*>& dead);
// Removes `nodes` (in order) whose outputs have no uses, and initializers they read that nothing uses then.
void removeIfUnused(Rewriter& rewriter, const std::vector<Node*>& nodes);

// A float32 initializer named after `base` (made unique).
Value* addFloatInitializer(Rewriter& rewriter, Graph& graph, const std::string& base,
                           std::vector<int64_t> dims, const std::vector<float>& values);

// Ids of the graph's nodes in stored order: passes edit while iterating and look each node up again with
// Graph::findNode, which is null once an earlier rewrite removed it.
std::vector<NodeId> nodeIdsOf(const Graph& graph);

}  // namespace onyx::passes
