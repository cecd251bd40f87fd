#include "graph/graph_scene.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "ir/scopes.h"

namespace onyx::views {
namespace {

constexpr double kSceneMargin = 40;
constexpr double kLabelClearance = 1;  // kept free around a label so neighbours do not touch
constexpr double kGridCell = 64;       // the collision grid's cell: about a label's width

// Rectangles already placed, bucketed by grid cell so a new one is tested against its neighbours only.
class RectGrid {
 public:
  bool intersectsAny(const QRectF& rect) const {
    bool hit = false;
    forCells(rect, [&](int64_t key) {
      auto it = cells_.find(key);
      if (it == cells_.end()) return;
      for (const QRectF& placed : it->second) hit = hit || placed.intersects(rect);
    });
    return hit;
  }
  void add(const QRectF& rect) {
    forCells(rect, [&](int64_t key) { cells_[key].push_back(rect); });
  }

 private:
  template <class Visit>
  static void forCells(const QRectF& rect, Visit&& visit) {
    const auto first = [](double at) { return static_cast<int64_t>(std::floor(at / kGridCell)); };
    for (int64_t x = first(rect.left()); x <= first(rect.right()); ++x)
      for (int64_t y = first(rect.top()); y <= first(rect.bottom()); ++y) visit((x << 32) ^ (y & 0xffffffff));
  }
  std::unordered_map<int64_t, std::vector<QRectF>> cells_;
};

// Every node in the scope and below.
void collectNodes(const Scope& scope, std::vector<const Node*>& nodes) {
  nodes.insert(nodes.end(), scope.nodes.begin(), scope.nodes.end());
  for (const auto& child : scope.children) collectNodes(*child, nodes);
}

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setBackgroundBrush(state_.style->background);
}

void GraphScene::setStyle(const GraphStyle& style) {
  if (&style == state_.style) return;
  state_.style = &style;
  setBackgroundBrush(style.background);
  for (BoxItem* box : boxes_) box->restyle();
  overviewDirty_ = true;
  update();
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
  overviewDirty_ = true;
}

void GraphScene::showLayout(std::shared_ptr<const layout::LevelLayout> layout,
                            const EdgeLabelSource& labels) {
  clearLayout();
  layout_ = std::move(layout);
  const layout::LevelView& level = *layout_->level;
  // The index is rebuilt once for the whole level rather than per added item.
  setItemIndexMethod(QGraphicsScene::NoIndex);
  clusters_.reserve(level.clusters.size());
  for (size_t i = 0; i < level.clusters.size(); ++i) {
    auto* cluster = new ClusterItem(state_, layout_, i);
    cluster->setVisible(!overview_);
    addItem(cluster);
    clusters_.push_back(cluster);
  }
  boxes_.reserve(level.items.size());
  for (size_t i = 0; i < level.items.size(); ++i) {
    auto* box = new BoxItem(state_, layout_, i);
    box->setVisible(!overview_);
    addItem(box);
    boxes_.push_back(box);
    boxByKey_.emplace(level.items[i].key, box);
    if (const Node* node = level.items[i].node) boxByNode_.emplace(node->id(), box);
  }
  edges_.reserve(level.edges.size());
  for (size_t i = 0; i < level.edges.size(); ++i) {
    auto* edge = new EdgeItem(state_, layout_, i);
    if (labels) edge->setLabel(labels(level.edges[i].value));
    edge->setVisible(!overview_);
    addItem(edge);
    edges_.push_back(edge);
    edgesByValue_[level.edges[i].value].push_back(edge);
  }
  placeEdgeLabels();
  setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  const layout::Rect& bounds = layout_->bounds;
  setSceneRect(QRectF(bounds.x, bounds.y, bounds.width, bounds.height)
                   .adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
}

void GraphScene::relabelEdges(const EdgeLabelSource& labels) {
  for (EdgeItem* edge : edges_) edge->setLabel(labels ? labels(edge->levelEdge().value) : EdgeLabel{});
  placeEdgeLabels();
}

size_t GraphScene::placeEdgeLabels() {
  RectGrid taken;
  for (const BoxItem* box : boxes_) taken.add(box->box());
  size_t hidden = 0;
  for (EdgeItem* edge : edges_) {
    const std::vector<QRectF> spots = edge->labelSpots();
    if (spots.empty()) continue;
    auto free = std::find_if(spots.begin(), spots.end(), [&](const QRectF& spot) {
      return !taken.intersectsAny(spot.adjusted(-kLabelClearance, -kLabelClearance, kLabelClearance, kLabelClearance));
    });
    if (free == spots.end()) {
      edge->placeLabel(spots.front().topLeft(), false);
      ++hidden;
      continue;
    }
    taken.add(*free);
    edge->placeLabel(free->topLeft(), true);
  }
  return hidden;
}

size_t GraphScene::patchLevel(std::shared_ptr<const layout::LevelLayout> layout, const EdgeLabelSource& labels) {
  layout_ = std::move(layout);
  size_t changed = 0;
  boxByKey_.clear();  // a terminal's key holds its value's name
  for (BoxItem* box : boxes_) {
    changed += box->setLevelLayout(layout_);
    boxByKey_.emplace(box->levelItem().key, box);
  }
  for (EdgeItem* edge : edges_) {
    bool renamed = edge->setLevelLayout(layout_);
    bool relabelled = edge->relabel(labels ? labels(edge->levelEdge().value) : EdgeLabel{});
    changed += renamed || relabelled;
  }
  placeEdgeLabels();
  for (ClusterItem* cluster : clusters_) cluster->setLevelLayout(layout_);
  overviewDirty_ = true;
  return changed;
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
  overviewDirty_ = true;
  if (overview_) update();
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
  overviewDirty_ = true;
  if (overview_) update();  // the overview is painted as the background: the items' updates miss it
}

void GraphScene::clearOverlay() {
  for (BoxItem* box : boxes_) box->setOverlay(std::nullopt);
  overviewDirty_ = true;
  if (overview_) update();
}

void GraphScene::setOverview(bool overview) {
  if (overview == overview_) return;
  overview_ = overview;
  // Items stay top-level (a common parent would defeat the index's culling): each is hidden on its own.
  for (ClusterItem* cluster : clusters_) cluster->setVisible(!overview);
  for (BoxItem* box : boxes_) box->setVisible(!overview);
  for (EdgeItem* edge : edges_) edge->setVisible(!overview);
  update();
}

void GraphScene::rebuildOverview() {
  overviewDirty_ = false;
  overviewBoxes_.clear();
  overviewEdges_.clear();
  overviewHighlightedEdges_.clear();
  overviewSelection_ = QRectF();
  std::map<QRgb, size_t> bucketOf;
  for (const BoxItem* box : boxes_) {
    // The overlay's fill (the profile's heat colour) shows in the overview too; the selection is a ring.
    QColor fill = box->overlay() && box->overlay()->fill.isValid() ? box->overlay()->fill
                                                                     : state_.style->fillFor(box->levelItem());
    if (box->isHighlighted()) overviewSelection_ = box->box();
    auto [it, added] = bucketOf.try_emplace(fill.rgba(), overviewBoxes_.size());
    if (added) overviewBoxes_.push_back({fill, {}});
    overviewBoxes_[it->second].second.push_back(box->box());
  }
  for (size_t i = 0; layout_ && i < layout_->edges.size(); ++i) {
    const layout::EdgeGeometry& geometry = layout_->edges[i];
    if (geometry.points.empty()) continue;
    const layout::Point& end = geometry.hasArrow ? geometry.arrowTip : geometry.points.back();
    QLineF line(geometry.points.front().x, geometry.points.front().y, end.x, end.y);
    (edges_[i]->isHighlighted() ? overviewHighlightedEdges_ : overviewEdges_).push_back(line);
  }
}

void GraphScene::drawBackground(QPainter* painter, const QRectF& rect) {
  painter->fillRect(rect, backgroundBrush());
  if (!overview_ || !layout_) return;
  if (overviewDirty_) rebuildOverview();
  const GraphStyle& style = *state_.style;
  // At least one pixel per box, so a zoomed-out level still shows where its nodes are.
  const double pixel =
      1.0 / std::max(1e-6, QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()));
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing, false);
  painter->setPen(QPen(style.clusterBorder, 0));
  painter->setBrush(style.clusterFill);
  for (const ClusterItem* cluster : clusters_) {
    if (cluster->boundingRect().intersects(rect)) painter->drawRect(cluster->boundingRect());
  }
  auto drawLines = [&](const std::vector<QLineF>& lines, const QColor& color) {
    std::vector<QLineF> visible;
    for (const QLineF& line : lines) {
      if (QRectF(line.p1(), line.p2()).normalized().adjusted(-pixel, -pixel, pixel, pixel).intersects(rect)) {
        visible.push_back(line);
      }
    }
    painter->setPen(QPen(color, 0));
    painter->drawLines(visible.data(), static_cast<int>(visible.size()));
  };
  drawLines(overviewEdges_, style.edgeColor);
  drawLines(overviewHighlightedEdges_, style.selectionColor);
  painter->setPen(Qt::NoPen);
  std::vector<QRectF> visible;
  for (const auto& [fill, boxes] : overviewBoxes_) {
    visible.clear();
    for (const QRectF& box : boxes) {
      if (!box.intersects(rect)) continue;
      visible.push_back(
          QRectF(box.topLeft(), QSizeF(std::max(box.width(), pixel), std::max(box.height(), pixel))));
    }
    painter->setBrush(fill);
    painter->drawRects(visible.data(), static_cast<int>(visible.size()));
  }
  if (!overviewSelection_.isNull()) {
    // A ring a few pixels outside the box whatever the scale, on a white halo.
    const double gap = 4 * pixel;
    QRectF ring = overviewSelection_.adjusted(-gap, -gap, gap, gap);
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(Qt::white, 5 * pixel));
    painter->drawRect(ring);
    painter->setPen(QPen(style.selectionColor, 3 * pixel));
    painter->drawRect(ring);
  }
  painter->restore();
}

}  // namespace onyx::views
