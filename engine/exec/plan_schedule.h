#pragma once
// Planning step 1, schedule: the order a graph's nodes run in. Topological (Kahn's algorithm), stable with
// respect to the file order, and a node with bodies runs after whatever its bodies read from this graph.
#include <vector>

#include "exec/plan_context.h"

namespace onyx::exec {

// An error naming a node on a cycle when the graph has one.
Expected<std::vector<const Node*>> scheduleNodes(const Graph& graph, const OuterReads& outerReads);

}  // namespace onyx::exec
