#pragma once
// What every planning step reads and none changes: the model and its opsets, the backends in preference
// order (the fallback, a host backend, last), the options that switch steps off (PlanContext); and facts
// about one graph's values: which must be materialized and which have a single reader (ValueFacts).
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "exec/backend.h"
#include "ir/model.h"

namespace onyx::exec {

struct PlanContext {
  const Model& model;
  // Preference order; the last is the host fallback that runs what the others do not.
  std::vector<Backend*> backends;
  // While planning a function body: the function's opset imports, which its nodes' versions come from.
  const std::vector<OpsetImport>* imports = nullptr;
  bool fuseEpilogues = true;  // epilogues, and the Transpose and Concat folds
  bool channelsLast = true;
  bool channelBlocks = true;  // ExecutorOptions::channelBlocks
  bool foldConstants = true;

  int opsetFor(const std::string& domain) const;
  // The opset a node of the graph runs at (1 for a default-domain node the model imports no opset for).
  int opsetOf(const Node& node) const;
  Backend& fallback() const { return *backends.back(); }
  // Whether the backend that will run `node` (the first that supports it) computes on host memory, where a
  // reader can take its input producer's operands as they lie.
  bool runsOnHost(const Node& node) const;
};

// Every value the bodies of each node of a graph read from enclosing scopes (nested bodies included).
using OuterReads = std::unordered_map<const Node*, std::vector<const onyx::Value*>>;
OuterReads outerReadsOf(const Graph& graph);

class ValueFacts {
 public:
  ValueFacts(const Graph& graph, const OuterReads& outerReads);
  // Values that must be materialized as they are: graph outputs and values read by bodies (everything read
  // outside this graph's steps). Folds, epilogues and channels-last leave them alone.
  bool pinned(const onyx::Value* value) const { return pinned_.count(value) > 0; }
  const std::unordered_set<const onyx::Value*>& pinnedValues() const { return pinned_; }
  // The single node of this graph reading `value` (one output, no bodies), or null.
  const Node* onlyUser(const onyx::Value* value) const;

 private:
  const Graph& graph_;
  std::unordered_set<const onyx::Value*> pinned_;
};

// The tensor a value holds when known while planning: an initializer, or a Constant node's `value` (exporters
// write Clip bounds and scalars as Constant nodes as often as initializers).
const onyx::Tensor* constantOf(const onyx::Value* value);

// The default ONNX domain, under either of its names.
bool isOnnxDomain(const Node& node);

}  // namespace onyx::exec
