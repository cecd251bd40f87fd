// Fusions and splits in a diff, through the new model's node origins (ir/node_origin.h): Conv +
// BatchNormalization folded into the Conv reads as one "nodes fused" entry, not a removal and a changed Conv.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "diff/graph_diff.h"
#include "onnx/node_metadata.h"

namespace onyx::diff {

namespace {

void collectNodes(const Graph& graph, std::vector<const Node*>& into) {
  for (const Node* node : graph.nodes()) {
    into.push_back(node);
    for (const Graph* body : node->subgraphs()) collectNodes(*body, into);
  }
}

std::vector<const Node*> allNodes(const Model& model) {
  std::vector<const Node*> nodes;
  collectNodes(model.graph(), nodes);
  for (const auto& function : model.functions)
    if (function->body) collectNodes(*function->body, nodes);
  return nodes;
}

// Finds the old node an origin names: by id within one model's lineage, else by name (unique names only),
// else by id; the op type must agree either way.
class OriginResolver {
 public:
  OriginResolver(const Model& before, MatchBy by) : by_(by) {
    for (const Node* node : allNodes(before)) {
      byId_[node->id()] = node;
      if (node->name().empty()) continue;
      auto [it, fresh] = byName_.try_emplace(node->name(), node);
      if (!fresh) it->second = nullptr;  // ambiguous
    }
  }
  const Node* resolve(const NodeOrigin& origin) const {
    const Node* found = nullptr;
    if (by_ == MatchBy::Structure && !origin.name.empty()) {
      auto it = byName_.find(origin.name);
      found = it == byName_.end() ? nullptr : it->second;
    } else {
      auto it = byId_.find(origin.id);
      found = it == byId_.end() ? nullptr : it->second;
    }
    return found && found->opType() == origin.opType ? found : nullptr;
  }

 private:
  MatchBy by_;
  std::unordered_map<NodeId, const Node*> byId_;
  std::unordered_map<std::string, const Node*> byName_;
};

std::string describeAll(const std::vector<const Node*>& nodes) {
  std::string text;
  for (const Node* node : nodes) text += (text.empty() ? "" : ", ") + node->describe();
  return text;
}

}  // namespace

void pairByOrigins(const Model& before, const Model& after, MatchBy by, ModelDiff& diff) {
  std::vector<Change>& changes = diff.changes;
  std::set<NodeId> removed, added;
  for (const Change& change : changes) {
    if (change.kind == ChangeKind::NodeRemoved) removed.insert(change.beforeNode);
    if (change.kind == ChangeKind::NodeAdded) added.insert(change.afterNode);
  }
  OriginResolver resolver(before, by);
  // Each pairing: the entry, and the changes it explains (replaced by it at the first one's place).
  std::vector<std::pair<Change, std::set<size_t>>> pairings;
  auto explained = [&](const std::set<NodeId>& olds, const std::set<NodeId>& news) {
    std::set<size_t> indices;
    for (size_t i = 0; i < changes.size(); ++i) {
      const Change& c = changes[i];
      if ((c.kind == ChangeKind::NodeRemoved && olds.count(c.beforeNode)) ||
          (c.kind == ChangeKind::NodeAdded && news.count(c.afterNode)) ||
          (isNodeChange(c.kind) && news.count(c.afterNode)))
        indices.insert(i);
    }
    return indices;
  };
  auto scopeOf = [&](const std::set<size_t>& indices) {
    return indices.empty() ? std::string() : changes[*indices.begin()].scope;
  };
  std::map<const Node*, std::vector<const Node*>> splitInto;  // old node -> new nodes made from it alone
  for (const Node* node : allNodes(after)) {
    std::vector<const Node*> olds;
    for (const NodeOrigin& origin : nodeOrigins(*node))
      if (const Node* old = resolver.resolve(origin);
          old && std::find(olds.begin(), olds.end(), old) == olds.end())
        olds.push_back(old);
    if (olds.size() == 1 && removed.count(olds[0]->id()) && added.count(node->id()))
      splitInto[olds[0]].push_back(node);
    if (olds.size() < 2) continue;
    // Every old node is gone or became this one (the Conv a BatchNormalization folded into), one is gone.
    auto match = diff.afterToBefore.find(node->id());
    NodeId matchedOld = match == diff.afterToBefore.end() ? kNoNode : match->second;
    bool explains =
        std::any_of(olds.begin(), olds.end(), [&](const Node* old) { return removed.count(old->id()); });
    for (const Node* old : olds) explains = explains && (removed.count(old->id()) || old->id() == matchedOld);
    if (!explains || (!added.count(node->id()) && matchedOld == kNoNode)) continue;
    std::set<NodeId> oldIds;
    Change change{.kind = ChangeKind::NodesFused, .subject = node->describe(), .before = describeAll(olds)};
    for (const Node* old : olds) {
      oldIds.insert(old->id());
      change.beforeNodes.push_back(old->id());
    }
    change.afterNodes = {node->id()};
    change.beforeNode = olds.front()->id();
    change.afterNode = node->id();
    std::set<size_t> indices = explained(oldIds, {node->id()});
    change.scope = scopeOf(indices);
    pairings.push_back({std::move(change), std::move(indices)});
  }
  for (const auto& [old, news] : splitInto) {
    if (news.size() < 2) continue;
    Change change{.kind = ChangeKind::NodeSplit, .subject = old->describe(), .after = describeAll(news)};
    std::set<NodeId> newIds;
    for (const Node* node : news) {
      newIds.insert(node->id());
      change.afterNodes.push_back(node->id());
    }
    change.beforeNodes = {old->id()};
    change.beforeNode = old->id();
    change.afterNode = news.front()->id();
    std::set<size_t> indices = explained({old->id()}, newIds);
    change.scope = scopeOf(indices);
    pairings.push_back({std::move(change), std::move(indices)});
  }
  if (pairings.empty()) return;
  std::map<size_t, std::vector<Change>> placed;  // entries at the place of the first change each explains
  std::set<size_t> dropped;
  for (auto& [change, indices] : pairings) {
    if (indices.empty()) continue;
    dropped.insert(indices.begin(), indices.end());
    placed[*indices.begin()].push_back(std::move(change));
  }
  std::vector<Change> result;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (auto it = placed.find(i); it != placed.end())
      for (Change& change : it->second) result.push_back(std::move(change));
    if (!dropped.count(i)) result.push_back(std::move(changes[i]));
  }
  changes = std::move(result);
}

}  // namespace onyx::diff
