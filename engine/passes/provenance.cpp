#include "passes/provenance.h"

#include <algorithm>
#include <set>

#include "onnx/node_metadata.h"

namespace onyx::passes {

namespace {

bool isData(const NodeOrigin& node) {
  return node.opType == "Constant";
}

void appendUnique(std::vector<NodeOrigin>& into, const std::vector<NodeOrigin>& more) {
  for (const NodeOrigin& origin : more)
    if (std::find(into.begin(), into.end(), origin) == into.end()) into.push_back(origin);
}

// What a node stands for in the model as first loaded: its own origins, or itself when it has none.
std::vector<NodeOrigin> rootOrigins(const NodeOrigin& node, const std::string& unknownFields) {
  std::vector<NodeOrigin> origins = originsFromUnknownFields(unknownFields);
  if (origins.empty()) origins.push_back(node);
  return origins;
}

void setOrigins(Rewriter& rewriter, Node* node, const std::vector<NodeOrigin>& origins) {
  rewriter.setUnknownFields(node, withNodeOrigins(node->unknownFields(), origins));
}

}  // namespace

void recordProvenance(Rewriter& rewriter, const Rewriter::RewriteEdits& edits) {
  std::vector<NodeOrigin> sources;
  std::set<const Graph*> graphs;
  for (const Rewriter::TouchedNode& removed : edits.removed) {
    if (isData(removed.node)) continue;
    appendUnique(sources, rootOrigins(removed.node, removed.unknownFields));
    graphs.insert(removed.graph);
  }
  if (sources.empty()) return;
  for (const Rewriter::TouchedNode& added : edits.added)
    if (!isData(added.node) && graphs.count(added.graph)) setOrigins(rewriter, added.live, sources);
  for (const Rewriter::TouchedNode& modified : edits.modified) {
    if (!modified.tookOver || isData(modified.node)) continue;
    std::vector<NodeOrigin> origins = rootOrigins(modified.node, modified.live->unknownFields());
    appendUnique(origins, sources);
    setOrigins(rewriter, modified.live, origins);
  }
}

}  // namespace onyx::passes
