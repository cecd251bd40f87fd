#include "graph/level_patch.h"

#include <algorithm>
#include <unordered_set>

#include "ir/graph.h"

namespace onyx::views {
namespace {

using Kind = ChangeEvent::Kind;

// The graphs whose edits can show on a level of `shown`: itself, the bodies nested in it at any depth (their
// nodes' outer inputs are the level's edges) and the graphs around it (their values enter as ports). Found
// from `shown`, which is alive, so that an event's graph is only compared, never followed: a burst may
// name a body that a reverted transaction has freed since.
std::unordered_set<const Graph*> relatedGraphs(const Graph& shown) {
  std::unordered_set<const Graph*> related;
  for (const Graph* outer = shown.parent(); outer; outer = outer->parent()) related.insert(outer);
  std::vector<const Graph*> pending{&shown};
  while (!pending.empty()) {
    const Graph* graph = pending.back();
    pending.pop_back();
    related.insert(graph);
    for (const Node* node : graph->nodes())
      for (const Graph* body : node->subgraphs()) pending.push_back(body);
  }
  return related;
}

LevelImpact impactOf(const ChangeEvent& event, const Graph& shown,
                     const std::unordered_set<const Graph*>& related) {
  switch (event.kind) {
    case Kind::OpsetImportsChanged:
      return LevelImpact::None;  // nothing on a box or an edge names the opset
    case Kind::FunctionAdded:
    case Kind::FunctionRemoved:
      return LevelImpact::Relayout;  // calls of it gain or lose a body; a shown body may be gone
    default:
      break;
  }
  if (!event.graph) return LevelImpact::Relabel;  // not expected from the rewriter: check rather than guess
  if (event.graph == &shown) return isStructural(event.kind) ? LevelImpact::Relayout : LevelImpact::Relabel;
  return related.contains(event.graph) ? LevelImpact::Relabel : LevelImpact::None;
}

bool sameItem(const layout::Item& shown, const layout::Item& fresh) {
  if (shown.kind != fresh.kind || shown.node != fresh.node || shown.value != fresh.value ||
      shown.cluster != fresh.cluster) {
    return false;
  }
  // A group stands for a scope: another path or another count is another box. Node items are compared
  // by node (a rename may change the node's scope path without moving it on a flat level), terminals
  // and ports by value (their key holds the value's name, which a rename changes).
  if (shown.kind == layout::ItemKind::Group) return shown.key == fresh.key && shown.nodeCount == fresh.nodeCount;
  return true;
}

bool sameEdge(const layout::Edge& shown, const layout::Edge& fresh) {
  return shown.from == fresh.from && shown.to == fresh.to && shown.value == fresh.value &&
         shown.valueCount == fresh.valueCount;
}

bool sameCluster(const layout::Cluster& shown, const layout::Cluster& fresh) {
  return shown.scopePath == fresh.scopePath && shown.parent == fresh.parent;
}

// Text this many points wider or taller than its box still counts as fitting: dot may round a box's size,
// and a box has 8 points of padding on each side, so a point of overrun never reaches its border.
constexpr double kFitTolerance = 1.0;

}  // namespace

bool isStructural(ChangeEvent::Kind kind) {
  switch (kind) {
    case Kind::NodeAdded:
    case Kind::NodeRemoved:
    case Kind::InputsChanged:
    case Kind::GraphInputsChanged:
    case Kind::GraphOutputsChanged:
    case Kind::FunctionAdded:
    case Kind::FunctionRemoved:
      return true;
    case Kind::AttributeChanged:
    case Kind::NodeRenamed:
    case Kind::ValueRenamed:
    case Kind::ValueTypeChanged:
    case Kind::InitializerChanged:  // a new or dropped initializer changes the level: the check sees it
    case Kind::OpsetImportsChanged:
      return false;
  }
  return true;
}

LevelImpact impactOn(const std::vector<ChangeEvent>& events, const Graph& shown) {
  const std::unordered_set<const Graph*> related = relatedGraphs(shown);
  LevelImpact impact = LevelImpact::None;
  for (const ChangeEvent& event : events) {
    impact = std::max(impact, impactOf(event, shown, related));
    if (impact == LevelImpact::Relayout) break;
  }
  return impact;
}

bool sameStructure(const layout::LevelView& shown, const layout::LevelView& fresh) {
  if (shown.graph != fresh.graph || shown.items.size() != fresh.items.size() ||
      shown.edges.size() != fresh.edges.size() || shown.clusters.size() != fresh.clusters.size()) {
    return false;
  }
  return std::equal(shown.items.begin(), shown.items.end(), fresh.items.begin(), sameItem) &&
         std::equal(shown.edges.begin(), shown.edges.end(), fresh.edges.begin(), sameEdge) &&
         std::equal(shown.clusters.begin(), shown.clusters.end(), fresh.clusters.begin(), sameCluster);
}

std::shared_ptr<const layout::LevelLayout> patchedLayout(const layout::LevelLayout& shown,
                                                         std::shared_ptr<const layout::LevelView> fresh) {
  if (!fresh || !shown.level || !sameStructure(*shown.level, *fresh)) return nullptr;
  if (shown.items.size() != fresh->items.size()) return nullptr;
  for (size_t i = 0; i < fresh->items.size(); ++i) {
    const layout::Item& item = fresh->items[i];
    // The room is what the layout was asked for or what it gave, whichever is larger.
    const double width = std::max(shown.level->items[i].width, shown.items[i].width);
    const double height = std::max(shown.level->items[i].height, shown.items[i].height);
    if (item.width > width + kFitTolerance || item.height > height + kFitTolerance) return nullptr;
  }
  auto patched = std::make_shared<layout::LevelLayout>(shown);
  patched->level = std::move(fresh);
  return patched;
}

}  // namespace onyx::views
