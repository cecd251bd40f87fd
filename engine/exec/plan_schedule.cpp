// Planning step 1, schedule (plan_schedule.h).
#include "exec/plan_schedule.h"

#include <deque>
#include <unordered_set>

namespace onyx::exec {

Expected<std::vector<const Node*>> scheduleNodes(const Graph& graph, const OuterReads& outerReads) {
  std::vector<const Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  std::unordered_map<const Node*, int> pending;
  std::unordered_map<const Node*, std::vector<const Node*>> consumers;
  for (const Node* node : nodes) {
    std::unordered_set<const Node*> deps;
    auto depend = [&](const onyx::Value* v) {
      if (v && v->producer() && v->producer()->graph() == &graph && v->producer() != node)
        deps.insert(v->producer());
    };
    for (const onyx::Value* v : node->inputs()) depend(v);
    if (auto reads = outerReads.find(node); reads != outerReads.end())
      for (const onyx::Value* v : reads->second) depend(v);
    pending[node] = int(deps.size());
    for (const Node* d : deps) consumers[d].push_back(node);
  }
  std::deque<const Node*> ready;
  for (const Node* node : nodes)
    if (pending[node] == 0) ready.push_back(node);
  std::vector<const Node*> order;
  while (!ready.empty()) {
    const Node* node = ready.front();
    ready.pop_front();
    order.push_back(node);
    for (const Node* c : consumers[node])
      if (--pending[c] == 0) ready.push_back(c);
  }
  if (order.size() != nodes.size()) {
    for (const Node* node : nodes)
      if (pending[node] > 0) return makeError("the graph has a cycle through this node", node->describe());
  }
  return order;
}

}  // namespace onyx::exec
