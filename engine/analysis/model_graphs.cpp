#include "analysis/model_graphs.h"

namespace onyx {
namespace {

void collect(const Graph& graph, std::vector<const Graph*>& out) {
  out.push_back(&graph);
  for (const Node* node : graph.nodes())
    for (const Graph* body : node->subgraphs()) collect(*body, out);
}

}  // namespace

std::vector<const Graph*> allGraphs(const Model& model) {
  std::vector<const Graph*> graphs;
  collect(model.graph(), graphs);
  for (const auto& function : model.functions)
    if (function->body) collect(*function->body, graphs);
  return graphs;
}

const Node* findNodeInModel(const Model& model, NodeId id) {
  if (id == kNoNode) return nullptr;
  if (const Node* node = model.graph().findNode(id)) return node;
  for (const Graph* graph : allGraphs(model))
    if (const Node* node = graph->findNode(id)) return node;
  return nullptr;
}

}  // namespace onyx
