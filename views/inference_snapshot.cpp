#include "inference_snapshot.h"

#include <unordered_map>

#include "ir/rewriter.h"

namespace onyx::views {
namespace {

using GraphMap = std::unordered_map<const Graph*, const Graph*>;

// Pairs `from` with `to` and, node by node (matched by id), their bodies in attribute order.
void pairGraphs(const Graph& from, const Graph& to, GraphMap& pairs) {
  pairs.emplace(&from, &to);
  for (const Node* node : from.nodes()) {
    const Node* twin = to.findNode(node->id());
    if (!twin || twin->opType() != node->opType()) continue;
    std::vector<Graph*> bodies = node->subgraphs();
    std::vector<Graph*> twinBodies = twin->subgraphs();
    for (size_t i = 0; i < bodies.size() && i < twinBodies.size(); ++i)
      if (bodies[i] && twinBodies[i]) pairGraphs(*bodies[i], *twinBodies[i], pairs);
  }
}

GraphMap pairModels(const Model& snapshot, const Model& live) {
  GraphMap pairs;
  pairGraphs(snapshot.graph(), live.graph(), pairs);
  for (const std::shared_ptr<Function>& function : snapshot.functions) {
    if (!function || !function->body) continue;
    const Function* twin = live.findFunction(function->domain, function->name, function->overload);
    if (twin && twin->body) pairGraphs(*function->body, *twin->body, pairs);
  }
  return pairs;
}

}  // namespace

std::shared_ptr<const Model> snapshotOf(const Model& live) {
  return Rewriter::copyModel(live);
}

ShapeInference rebaseInference(ShapeInference inference, const Model& snapshot, const Model& live) {
  const GraphMap pairs = pairModels(snapshot, live);
  std::unordered_map<const Value*, InferredValue> rebased;
  rebased.reserve(inference.values.size());
  for (auto& [value, inferred] : inference.values) {
    auto graph = pairs.find(value->graph());
    if (graph == pairs.end()) continue;
    if (const Value* twin = graph->second->findValue(value->name())) rebased.emplace(twin, std::move(inferred));
  }
  inference.values = std::move(rebased);
  return inference;
}

}  // namespace onyx::views
