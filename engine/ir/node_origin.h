#pragma once
// Provenance: a node of an earlier version of the model that a node was made from. A rewrite that fuses or
// splits nodes gives the nodes it makes the origins of the nodes it replaced (passes/provenance.h), so after
// several passes a node still names the nodes of the model as first loaded. They are kept where a file keeps
// them, in the node's metadata_props entry "onyx.origin" (onnx/node_metadata.h reads and writes it), so they
// survive copies, undo and save/load with the rest of the node.
#include <string>

#include "ir/dim.h"

namespace onyx {

struct NodeOrigin {
  NodeId id = kNoNode;  // the id in the model the origin belonged to (the original, as loaded)
  std::string opType;
  std::string name;
  friend bool operator==(const NodeOrigin&, const NodeOrigin&) = default;
};

}  // namespace onyx
