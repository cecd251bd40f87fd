#pragma once
// Helpers the passes share: walking every graph, reading constants, and replacing a node's outputs so that
// graph output names never change.
#include <optional>
#include <string>
#include <vector>

#include "ir/model.h"
#include "ir/rewriter.h"
#include "passes/pass.h"
#include "passes/rewrite_helpers.h"  // isGraphOutput

namespace onyx::passes {

// The main graph and every body below it (If/Loop/Scan), parents before their bodies.
std::vector<Graph*> allGraphs(Model& model);
// Nodes of one graph in topological order (the stored order where it is one); on a cycle, the stored order.
std::vector<Node*> orderedNodes(const Graph& graph);

// An initializer that run-time inputs cannot override (not also listed as a graph input).
const Tensor* fixedInitializer(const Value* value);
// The constant a value holds: a fixed initializer or the output of a Constant node (any of its value_*
// attributes); nullopt otherwise (sparse constants included).
std::optional<Tensor> constantValue(const Value* value);
// Ops of the standard domains ("", ai.onnx, ai.onnx.ml) whose result does not depend only on the inputs.
bool isNondeterministic(const Node& node);
bool isStandardDomain(const std::string& domain);

// Why `node`'s outputs cannot be replaced by `replacements` (same count; null = output unused, left as is)
// while keeping graph output names; nullopt when they can. A graph output keeps its name by renaming its
// replacement, which must then be a node output or fixed initializer of the same graph, not a graph input
// and not already a graph output.
std::optional<std::string> whyNotReplaceable(const Node& node, const std::vector<Value*>& replacements);
// Rewires every use of the node's outputs to the replacements, removes the node, and gives replacements of
// graph outputs the outputs' names. Call only when whyNotReplaceable() is nullopt.
void replaceNode(Rewriter& rewriter, Node* node, const std::vector<Value*>& replacements);
// Removes a node whose outputs are unused, with its outputs' value_info entries.
void eraseNode(Rewriter& rewriter, Node* node);
// A name no value of the model's main graph or its bodies uses: `base`, else `base_1`, `base_2`...
std::string uniqueValueName(Model& model, const std::string& base);

// `%name` for skip reasons.
std::string valueRef(const Value* value);

}  // namespace onyx::passes
