#pragma once
// The one set of helpers every pass shares: walking the graphs of a model, recognising ops and reading
// constants, shapes as the passes see them, fresh names, and replacing or removing nodes so that use lists
// stay consistent (everything through the Rewriter) and graph output names never change.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "ir/rewriter.h"
#include "passes/pass.h"

namespace onyx::passes {

// --- Walking ---------------------------------------------------------------------------------------------

enum class FunctionBodies { Skip, Include };
// The main graph and every body below it (If/Loop/Scan, any depth), parents before their bodies; with
// FunctionBodies::Include also the bodies of model-local functions (and their bodies), except the functions
// elementwise-fusion generates (domain onyx.fused), which the executor compiles as they are.
std::vector<Graph*> allGraphs(Model& model, FunctionBodies functions = FunctionBodies::Skip);
// Nodes of one graph in topological order (the stored order where it is one); on a cycle, the stored order.
std::vector<Node*> orderedNodes(const Graph& graph);
// The model-local function whose body holds `graph` (directly or in a nested body), or null.
const Function* enclosingFunction(const Model& model, const Graph& graph);
// The domain of the functions elementwise-fusion creates.
inline constexpr std::string_view kFusedDomain = "onyx.fused";

// --- Recognising ops -------------------------------------------------------------------------------------

bool isStandardDomain(const std::string& domain);  // "", ai.onnx, ai.onnx.ml
// A com.microsoft op Onyx implements (the op catalogue has its schema): ONNX Runtime's fused and quantized
// ops, each a pure function of its inputs and attributes, so passes may merge or drop them like standard ops.
bool isKnownContribOp(const Node& node);
// Ops of the standard domains whose result does not depend only on the inputs, and ops of other domains
// except the known contrib ops (isKnownContribOp).
bool isNondeterministic(const Node& node);
// The attribute of `node` that refers to an attribute of the calling function (inside function bodies), or
// null: such a node's attributes are unknown until the call.
const Attribute* referenceAttribute(const Node& node);
// `node` is `op` of ai.onnx with every attribute known (no function attribute references).
bool isOp(const Node* node, std::string_view op);
// The producer of `value` when it is an `op` node (isOp), or null.
Node* producerOf(const Value* value, std::string_view op);
bool isGraphOutput(const Value* value);
// The node reading `value` when it is its only use (a graph output counts as a use); null otherwise.
Node* soleConsumer(const Value* value);
// The operand of binary `node` that is not `known`, or null when `known` is not one of its two operands.
Value* otherOperand(const Node* node, const Value* known);

// --- Constants -------------------------------------------------------------------------------------------

// An initializer that run-time inputs cannot override (not also listed as a graph input).
const Tensor* fixedInitializer(const Value* value);
// The constant a value holds: a fixed initializer or the output of a Constant node (any of its value_*
// attributes); nullopt otherwise (sparse constants included). Copies share the bytes.
std::optional<Tensor> constantValue(const Value* value);
// Elements of a float32 or float64 constant as doubles; of an int32 or int64 constant as int64; of a float32
// constant as floats. nullopt for other types, external data not loaded, or no constant.
std::optional<std::vector<double>> constantReals(const Value* value);
std::optional<std::vector<int64_t>> constantInts(const Value* value);
std::optional<std::vector<float>> constantFloats(const Value* value);
// The constant's single value when it holds one element (any rank, real or integer).
std::optional<double> constantScalar(const Value* value);

// --- Shapes ----------------------------------------------------------------------------------------------

// The value's shape: inferred (context.shapes()) first, then its declared type, then a constant's dims;
// nullopt when the rank is unknown (as in model-local function bodies, which inference does not keep).
std::optional<Shape> shapeOf(PassContext& context, const Value* value);
DataType elemTypeOf(PassContext& context, const Value* value);
// Axes in [0, rank), sorted; nullopt when one is out of range.
std::optional<std::vector<int64_t>> normalizeAxes(std::vector<int64_t> axes, int64_t rank);

// --- Names -----------------------------------------------------------------------------------------------

// A value name no graph of `graph`'s scope tree uses (its root: the main graph or a function body, and every
// body below that root): `base`, else `base_1`, `base_2`...
std::string freshValueName(const Graph& graph, const std::string& base);
// A node name no node of `graph` uses, with the same suffixes.
std::string freshNodeName(const Graph& graph, const std::string& base);
// `%name` for skip reasons.
std::string valueRef(const Value* value);

// --- Replacing and removing ------------------------------------------------------------------------------

// Why `node`'s outputs cannot be replaced by `replacements` (same count; null = output unused, left as is)
// while keeping graph output names; nullopt when they can. A graph output keeps its name by renaming its
// replacement, which must then be a node output or fixed initializer of the same graph, not a graph input
// and not already a graph output.
std::optional<std::string> whyNotReplaceable(const Node& node, const std::vector<Value*>& replacements);
// Rewires every use of the node's outputs to the replacements (a graph output's replacement takes its name
// and declared type), removes the node, then removes the nodes of `alsoRemove` that are unused by then (in
// order) and the initializers of their graph that only the removed nodes read. Call only when
// whyNotReplaceable() is nullopt.
void replaceNode(Rewriter& rewriter, Node* node, const std::vector<Value*>& replacements,
                 const std::vector<Node*>& alsoRemove = {});
// Removes a node whose outputs are unused, with its outputs' value_info entries.
void eraseNode(Rewriter& rewriter, Node* node);
// Removes the nodes of `nodes` (in order) whose outputs have no uses, and the initializers of their graph
// that nothing reads afterwards.
void removeIfUnused(Rewriter& rewriter, const std::vector<Node*>& nodes);

}  // namespace onyx::passes
