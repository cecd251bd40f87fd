#pragma once
// Finding things anywhere in a model: the main graph, If/Loop/Scan bodies at any depth and the bodies of
// model-local functions. Node ids are unique across the whole model, so an id (a DimOrigin's, a
// selection's) names one node wherever it lives.
#include <vector>

#include "ir/model.h"

namespace onyx {

// The main graph and every body under it (depth first, in node order), then each function's body and
// the bodies under it.
std::vector<const Graph*> allGraphs(const Model& model);

// The node with this id in any graph of the model, or null.
const Node* findNodeInModel(const Model& model, NodeId id);

}  // namespace onyx
