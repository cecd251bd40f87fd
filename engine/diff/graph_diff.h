#pragma once
// The difference between two models: which nodes were added, removed or changed (op, name, rewired inputs,
// attributes), which values were renamed or changed type, graph inputs and outputs, initializers (shape,
// element type, content hash), opset imports and model-local functions. If/Loop/Scan bodies of matched
// nodes and function bodies are compared node by node. Matching is described in node_matcher.h.
//
// The changes come in a fixed order: model-level (opsets), then per graph (main graph first): graph inputs,
// graph outputs, initializers, removed nodes (in the old graph's order), added nodes and changed nodes (in
// the new graph's order), then the bodies of matched nodes, then functions in the new model's order.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "diff/node_matcher.h"
#include "ir/model.h"

namespace onyx::diff {

enum class ChangeKind {
  OpsetChanged,          // subject: the domain; before/after: versions ("" when not imported)
  GraphInputAdded,       // subject: the input; after: its type
  GraphInputRemoved,     // before: its type
  GraphInputsReordered,  // before/after: the names in order
  GraphOutputAdded,      // after: the output's type
  GraphOutputRemoved,
  GraphOutputChanged,  // same name, made by another node; before/after: the producers
  InitializerAdded,    // after: "float32[64, 3]"
  InitializerRemoved,
  InitializerChanged,  // item: what changed ("shape, content"); before/after: type and content hash
  NodeAdded,
  NodeRemoved,
  NodeOpChanged,  // before/after: "Relu" / "com.acme::Swish"
  NodeRenamed,
  NodeInputChanged,          // item: "input 1"; before/after: the value names ("" for none)
  NodeInputProducerChanged,  // item: "input 1 'r'": a value of the same name made by another node;
                             // before/after: the producers
  NodeOutputChanged,         // item: "output 1"; an optional output appeared or disappeared
  AttributeAdded,            // item: the attribute; after: its value
  AttributeRemoved,
  AttributeChanged,
  ValueRenamed,      // subject: the old name; after: the new name
  ValueTypeChanged,  // before/after: "float32[N, 3]"
  FunctionAdded,     // subject: "domain.name"
  FunctionRemoved,
  FunctionChanged,  // item: "attributes" or "opset imports"
  // Paired through the new nodes' origins (ir/node_origin.h) instead of removed + added: several old nodes
  // became one new node (subject: the new node; before: the old nodes), or one old node became several new
  // ones (subject: the old node; after: the new nodes). beforeNodes/afterNodes hold every node of the pair.
  NodesFused,
  NodeSplit,
};

// kebab-case: "node-added", for JSON.
const char* changeKindName(ChangeKind kind);
bool isNodeChange(ChangeKind kind);
// Whether a change adds something, removes something, or changes what both sides have.
enum class ChangeDirection { Added, Removed, Changed };
ChangeDirection changeDirection(
    ChangeKind kind);  // op, name, inputs, outputs or attributes of a matched node

struct Change {
  ChangeKind kind;
  // Where, for bodies and functions: "" for the main graph, "Loop 'l' (#4) body", "function acme.Gelu",
  // "If 'i' (#2) then_branch > Loop 'l' (#9) body".
  std::string scope;
  std::string subject;  // the node (Node::describe), value, initializer, function or domain
  std::string item;
  std::string before;
  std::string after;
  NodeId beforeNode = kNoNode;  // the node concerned in the old model, if any
  NodeId afterNode = kNoNode;   // and in the new one
  std::vector<NodeId> beforeNodes, afterNodes;  // NodesFused and NodeSplit: all the nodes paired
};

struct DiffSummary {
  size_t nodesAdded = 0, nodesRemoved = 0, nodesChanged = 0;
  // NodesFused and NodeSplit entries; the nodes they group still count in nodesAdded and nodesRemoved.
  size_t fusions = 0, splits = 0;
  size_t initializersAdded = 0, initializersRemoved = 0, initializersChanged = 0;
  size_t valuesRenamed = 0, valueTypesChanged = 0;
  size_t graphInputsAdded = 0, graphInputsRemoved = 0, graphInputsReordered = 0;
  size_t graphOutputsAdded = 0, graphOutputsRemoved = 0, graphOutputsChanged = 0;
  size_t functionsAdded = 0, functionsRemoved = 0, functionsChanged = 0;
  size_t opsetsChanged = 0;
};

enum class NodeStatus { Unchanged, Added, Removed, Changed };

struct ModelDiff {
  std::vector<Change> changes;
  DiffSummary summary;
  // Matched nodes, by id (ids are unique in a model, bodies and functions included).
  std::unordered_map<NodeId, NodeId> beforeToAfter, afterToBefore;

  bool empty() const { return changes.empty(); }
  // Status of a node of the old model (Removed, Changed or Unchanged) or of the new one (Added, ...).
  NodeStatus statusBefore(NodeId node) const;
  NodeStatus statusAfter(NodeId node) const;

 private:
  friend ModelDiff diffModels(const Model&, const Model&, MatchBy);
  std::unordered_map<NodeId, NodeStatus> beforeStatus_, afterStatus_;
};

// MatchBy::NodeIds for one model's states (before and after edits, or a Rewriter::copyModel copy and its
// original); MatchBy::Structure for models loaded from different files.
ModelDiff diffModels(const Model& before, const Model& after, MatchBy by);

// Replaces the removals, additions and node changes that the new model's node origins explain by NodesFused
// and NodeSplit entries (origin_pairs.cpp; diffModels calls it before counting).
void pairByOrigins(const Model& before, const Model& after, MatchBy by, ModelDiff& diff);

}  // namespace onyx::diff
