#pragma once
// Structural checks of a model: what the loader tolerates so a broken file can still be opened and shown,
// but what must be fixed before it can be run or saved for other tools.
#include <string>
#include <vector>

#include "ir/model.h"
#include "util/expected.h"

namespace onyx {

struct Diagnostic {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  std::string message;
  NodeId node = kNoNode;  // the node concerned, if any
  std::string where;      // "graph 'main'", "node Conv 'conv1' (#3)", "function 'local.f'"
};

std::vector<Diagnostic> verify(const Model& model);
// Nodes in an order where every producer comes before its consumers (stable: the stored order wherever
// it already is one). A cycle is an error naming one node on it and the values that close it.
Expected<std::vector<Node*>> topologicalOrder(const Graph& graph);

}  // namespace onyx
