#pragma once
// Which node and value of one graph corresponds to which of another.
//
// Same lineage (one model before and after edits, or a model and its Rewriter::copyModel copy): node ids are
// stable, so nodes match by id. Unrelated files: nodes match by unique name first; the rest by structure,
// in rounds until a round matches nothing new:
//   1. forward labels: a node's label hashes its op, domain, attributes and the labels of its inputs, where
//      an input made by an already matched node (or a matched graph input/initializer) is labelled by that
//      pair. On a DAG this is the fixpoint of Weisfeiler-Lehman refinement over input edges, computed in one
//      pass in topological order. Nodes with equal labels match, ties in topological order.
//   2. backward labels: the same over uses (consumers and graph outputs), which matches the nodes after an
//      edit (their inputs differ, their consumers do not).
//   3. and 4. the same without attributes, for nodes whose inputs (or uses) are all matched already: a node
//      whose attribute changed still matches its counterpart.
// Graph inputs match by name, then by position among same-typed leftovers; initializers by name, then by
// content; a matched node's outputs match by index.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace onyx::diff {

enum class MatchBy { NodeIds, Structure };

// Values matched so far, for the whole model: a subgraph's nodes read values of the enclosing graphs, whose
// matches the body's matching builds on. Both sides of a pair carry the same anchor number.
struct ValueAnchors {
  std::unordered_map<const Value*, uint64_t> before, after;
  std::unordered_map<const Value*, const Value*> beforeToAfter, afterToBefore;
  uint64_t next = 1;
  void pair(const Value* a, const Value* b);
};

struct GraphMatch {
  std::unordered_map<const Node*, const Node*> beforeToAfter, afterToBefore;
};

// Matches the nodes of `before` with those of `after`, and records matched values (graph inputs,
// initializers, node outputs) in `anchors`.
GraphMatch matchGraphs(const Graph& before, const Graph& after, MatchBy by, ValueAnchors& anchors);

}  // namespace onyx::diff
