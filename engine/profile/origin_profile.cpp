#include "profile/origin_profile.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "onnx/node_metadata.h"
#include "profile/static_flops.h"
#include "shapes/shape_inference.h"

namespace onyx::profile {

namespace {

// Finds the original node an origin (or an optimized node without origins) stands for: by id when the op
// type and name agree (the same process, or ids of the original as loaded), else by name, which is what
// stays the same across files (exporters name every node).
class OriginalNodes {
 public:
  explicit OriginalNodes(const Model& original) {
    for (const Node* node : original.graph().nodes()) {
      byId_.emplace(node->id(), node);
      if (node->name().empty()) continue;
      auto [it, fresh] = byName_.try_emplace(node->name(), node);
      if (!fresh) it->second = nullptr;  // a name two nodes share identifies neither
    }
  }
  const Node* find(NodeId id, const std::string& opType, const std::string& name) const {
    auto byId = byId_.find(id);
    if (byId != byId_.end() && byId->second->opType() == opType &&
        (name.empty() || byId->second->name() == name))
      return byId->second;
    if (name.empty()) return nullptr;
    auto byName = byName_.find(name);
    return byName != byName_.end() && byName->second && byName->second->opType() == opType ? byName->second
                                                                                             : nullptr;
  }
  // The original nodes an optimized node stands for, each once.
  std::vector<const Node*> standsFor(const Node& node) const {
    std::vector<const Node*> out;
    std::vector<NodeOrigin> origins = nodeOrigins(node);
    if (origins.empty()) origins.push_back({node.id(), node.opType(), node.name()});
    for (const NodeOrigin& origin : origins) {
      const Node* found = find(origin.id, origin.opType, origin.name);
      if (found && std::find(out.begin(), out.end(), found) == out.end()) out.push_back(found);
    }
    return out;
  }

 private:
  std::unordered_map<NodeId, const Node*> byId_;
  std::unordered_map<std::string, const Node*> byName_;
};

struct Measured {
  int64_t totalNs = 0;
  int64_t count = 0;
};

}  // namespace

const char* fateName(OriginFate fate) {
  switch (fate) {
    case OriginFate::Kept:
      return "kept";
    case OriginFate::Merged:
      return "merged";
    case OriginFate::Removed:
      return "removed";
  }
  return "?";
}

size_t OriginProfile::count(OriginFate fate) const {
  return size_t(std::count_if(nodes.begin(), nodes.end(), [&](const OriginTime& n) { return n.fate == fate; }));
}

OriginProfile paintOnOriginal(const Profile& optimizedProfile, const Model& optimized, const Model& original,
                              const SymBindings& bindings) {
  OriginProfile result;
  result.iterations = optimizedProfile.iterationCount();
  ShapeInferenceOptions options;
  options.bindings = bindings;
  const ShapeInference shapes = inferShapes(original, options);
  std::unordered_map<NodeId, size_t> rowOf;
  for (const Node* node : original.graph().nodes()) {
    rowOf.emplace(node->id(), result.nodes.size());
    OriginTime row;
    row.node = node->id();
    row.name = node->name();
    row.opType = node->opType();
    row.flops = estimateFlops(*node, shapes);
    result.nodes.push_back(std::move(row));
  }

  std::map<NodeId, Measured> measured;  // by id: deterministic order
  std::set<std::string> unplaced;
  auto markUnplaced = [&](const std::string& name) {
    if (unplaced.insert(name).second) result.unplaced.push_back(name);
  };
  for (const exec::ProfileEvent& event : optimizedProfile.events) {
    if (event.depth > 0) continue;  // a control-flow node's time holds its body's
    result.totalNs += event.durationNs;
    if (event.node == kNoNode) {
      markUnplaced(event.name.empty() ? event.opType : event.name);
      continue;
    }
    Measured& m = measured[event.node];
    m.totalNs += event.durationNs;
    ++m.count;
  }

  const OriginalNodes index(original);
  for (const auto& [id, time] : measured) {
    const Node* node = optimized.graph().findNode(id);
    std::vector<const Node*> targets = node ? index.standsFor(*node) : std::vector<const Node*>{};
    if (targets.empty()) {
      markUnplaced(node ? node->describe() : "node #" + std::to_string(id));
      continue;
    }
    int64_t weightSum = 0;
    for (const Node* target : targets) weightSum += result.nodes[rowOf.at(target->id())].flops;
    int64_t assigned = 0;
    for (size_t k = 0; k < targets.size(); ++k) {
      OriginTime& row = result.nodes[rowOf.at(targets[k]->id())];
      // No FLOPs known for any of them (shapes not static, data movement only): equal parts.
      double share = weightSum > 0 ? double(row.flops) / double(weightSum) : 1.0 / double(targets.size());
      int64_t ns = k + 1 == targets.size() ? time.totalNs - assigned : int64_t(double(time.totalNs) * share);
      assigned += ns;
      row.totalNs += ns;
      row.count += time.count;
      row.from.push_back(node->name().empty() ? node->describe() : node->name());
      row.fate = targets.size() == 1 && row.fate != OriginFate::Merged ? OriginFate::Kept : OriginFate::Merged;
    }
    result.placedNs += time.totalNs;
  }
  return result;
}

ProfileMetrics originMetrics(const OriginProfile& origins) {
  ProfileMetrics metrics;
  metrics.iterations = origins.iterations;
  metrics.totalNs = origins.totalNs;
  for (const OriginTime& row : origins.nodes) {
    if (row.fate == OriginFate::Removed) continue;
    NodeMetrics& m = metrics.nodes[row.node];
    m.totalNs = row.totalNs;
    m.count = row.count;
    m.flops = row.flops * origins.iterations;
  }
  return metrics;
}

bool descendsFrom(const Model& optimized, const Model& original) {
  const OriginalNodes index(original);
  const auto& nodes = optimized.graph().nodes();
  return nodes.begin() != nodes.end() &&
         std::all_of(nodes.begin(), nodes.end(), [&](const Node* node) { return !index.standsFor(*node).empty(); });
}

}  // namespace onyx::profile
