#include "graph/graph_scene.h"

#include <functional>

#include "ir/scopes.h"

namespace onyx::views {
namespace {

constexpr double kSceneMargin = 40;

// Every node in the scope and below.
void collectNodes(const Scope& scope, std::vector<const Node*>& nodes) {
  nodes.insert(nodes.end(), scope.nodes.begin(), scope.nodes.end());
  for (const auto& child : scope.children) collectNodes(*child, nodes);
}

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setBackgroundBrush(state_.style->background);
}

void GraphScene::clearLayout() {
  highlightedBox_ = nullptr;
  highlightedEdges_.clear();
  boxes_.clear();
  edges_.clear();
  clusters_.clear();
  boxByNode_.clear();
  boxByKey_.clear();
  edgesByValue_.clear();
  clear();
  layout_.reset();
}

void GraphScene::showLayout(std::shared_ptr<const layout::LevelLayout> layout, const EdgeLabelSource& labels) {
  clearLayout();
  layout_ = std::move(layout);
  const layout::LevelView& level = *layout_->level;
  // The index is rebuilt once for the whole level rather than per added item.
  setItemIndexMethod(QGraphicsScene::NoIndex);
  clusters_.reserve(level.clusters.size());
  for (size_t i = 0; i < level.clusters.size(); ++i) {
    auto* cluster = new ClusterItem(state_, layout_, i);
    addItem(cluster);
    clusters_.push_back(cluster);
  }
  boxes_.reserve(level.items.size());
  for (size_t i = 0; i < level.items.size(); ++i) {
    auto* box = new BoxItem(state_, layout_, i);
    addItem(box);
    boxes_.push_back(box);
    boxByKey_.emplace(level.items[i].key, box);
    if (const Node* node = level.items[i].node) boxByNode_.emplace(node->id(), box);
  }
  edges_.reserve(level.edges.size());
  for (size_t i = 0; i < level.edges.size(); ++i) {
    auto* edge = new EdgeItem(state_, layout_, i);
    if (labels) edge->setLabel(labels(level.edges[i].value));
    addItem(edge);
    edges_.push_back(edge);
    edgesByValue_[level.edges[i].value].push_back(edge);
  }
  setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  const layout::Rect& bounds = layout_->bounds;
  setSceneRect(QRectF(bounds.x, bounds.y, bounds.width, bounds.height)
                   .adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
}

void GraphScene::relabelEdges(const EdgeLabelSource& labels) {
  for (EdgeItem* edge : edges_) edge->setLabel(labels ? labels(edge->levelEdge().value) : EdgeLabel{});
}

size_t GraphScene::nodeItemCount() const {
  size_t count = 0;
  for (const BoxItem* box : boxes_) count += box->levelItem().kind == layout::ItemKind::Node;
  return count;
}

BoxItem* GraphScene::boxForNode(NodeId node) const {
  auto it = boxByNode_.find(node);
  return it == boxByNode_.end() ? nullptr : it->second;
}

BoxItem* GraphScene::boxForKey(const std::string& key) const {
  auto it = boxByKey_.find(key);
  return it == boxByKey_.end() ? nullptr : it->second;
}

std::vector<EdgeItem*> GraphScene::edgesForValue(const Value* value) const {
  auto it = edgesByValue_.find(value);
  return it == edgesByValue_.end() ? std::vector<EdgeItem*>{} : it->second;
}

void GraphScene::highlight(NodeId node, const Value* value) {
  if (highlightedBox_) highlightedBox_->setHighlighted(false);
  for (EdgeItem* edge : highlightedEdges_) edge->setHighlighted(false);
  highlightedBox_ = node == kNoNode ? nullptr : boxForNode(node);
  highlightedEdges_ = value ? edgesForValue(value) : std::vector<EdgeItem*>{};
  if (highlightedBox_) highlightedBox_->setHighlighted(true);
  for (EdgeItem* edge : highlightedEdges_) edge->setHighlighted(true);
}

void GraphScene::setOverlay(const std::unordered_map<NodeId, NodeOverlay>& overlay, const ScopeTree* scopes,
                            const std::function<QString(double)>& formatTotal) {
  for (BoxItem* box : boxes_) {
    const layout::Item& item = box->levelItem();
    if (item.kind == layout::ItemKind::Node && item.node) {
      auto it = overlay.find(item.node->id());
      box->setOverlay(it == overlay.end() ? std::nullopt : std::optional<NodeOverlay>(it->second));
    } else if (item.kind == layout::ItemKind::Group && scopes) {
      const Scope* scope = scopes->find(item.scopePath);
      if (!scope) continue;
      std::vector<const Node*> members;
      collectNodes(*scope, members);
      NodeOverlay total;
      double largest = -1;
      bool any = false;
      for (const Node* member : members) {
        auto it = overlay.find(member->id());
        if (it == overlay.end()) continue;
        any = true;
        total.value += it->second.value;
        if (it->second.value > largest) {
          largest = it->second.value;
          total.fill = it->second.fill;
        }
      }
      if (!any) {
        box->setOverlay(std::nullopt);
        continue;
      }
      total.label = formatTotal ? formatTotal(total.value) : QString::number(total.value);
      box->setOverlay(total);
    }
  }
}

void GraphScene::clearOverlay() {
  for (BoxItem* box : boxes_) box->setOverlay(std::nullopt);
}

}  // namespace onyx::views
