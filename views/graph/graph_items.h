#pragma once
// The scene items of one laid-out level: a box per level item (node, collapsed group, terminal, port), a
// routed edge per level edge and a frame per inline-expanded scope. Items draw from the LevelLayout they
// index into and drop detail as they get small on screen (level of detail).
#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "graph/edge_label.h"
#include "graph/graph_style.h"
#include "layout/layout_result.h"

namespace onyx::views {

// A per-node overlay from a later view (profiling): a fill replacing the category colour and a label.
struct NodeOverlay {
  QColor fill;
  QString label;     // "3.2 ms"
  double value = 0;  // summed into the groups that hold the node
};

// What every item of a scene reads: the style and whether to ignore the level of detail (SVG output).
struct SceneState {
  const GraphStyle* style = &GraphStyle::standard();
  bool fullDetail = false;
  double lod(const QStyleOptionGraphicsItem* option, const QPainter* painter) const;
};

class BoxItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  BoxItem(const SceneState& state, std::shared_ptr<const layout::LevelLayout> layout, size_t index);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  const layout::Item& levelItem() const { return layout_->level->items[index_]; }
  size_t index() const { return index_; }
  // Takes the item's text from `layout` (the same level patched after an edit: same boxes, new text) and
  // repaints when it changed. The box keeps its place and size. True when the text or colour changed.
  bool setLevelLayout(std::shared_ptr<const layout::LevelLayout> layout);
  const QString& title() const { return title_; }
  const QString& name() const { return name_; }
  const QStringList& lines() const { return lines_; }
  QRectF box() const { return box_; }
  void setHighlighted(bool highlighted);
  bool isHighlighted() const { return highlighted_; }
  // Takes its fill from the scene's style again (the style changed) and repaints.
  void restyle();
  void setOverlay(std::optional<NodeOverlay> overlay);
  const std::optional<NodeOverlay>& overlay() const { return overlay_; }
  // The fill it is painted with: the overlay's where it gives one, else its own (the op category's).
  QColor shownFill() const { return overlay_ && overlay_->fill.isValid() ? overlay_->fill : fill_; }
  // The node's id (kNoNode for other items), read when built: painting and clicks never touch the IR, which
  // an edit may have changed before the level is laid out again.
  NodeId nodeId() const { return nodeId_; }

 private:
  void readText();

  const SceneState& state_;
  std::shared_ptr<const layout::LevelLayout> layout_;
  size_t index_;
  QRectF box_;
  QColor fill_;
  NodeId nodeId_ = kNoNode;
  QString title_;
  QString name_;
  QStringList lines_;
  int firstTag_ = 0;  // lines from here on are initializer tags
  bool highlighted_ = false;
  std::optional<NodeOverlay> overlay_;
};

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };
  EdgeItem(const SceneState& state, std::shared_ptr<const layout::LevelLayout> layout, size_t index);

  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  const layout::Edge& levelEdge() const { return layout_->level->edges[index_]; }
  const EdgeLabel& label() const { return label_; }
  void setLabel(EdgeLabel label);
  // Sets the label when it differs from the shown one (a patch relabels only what changed); true if so.
  bool relabel(EdgeLabel label);
  // As BoxItem::setLevelLayout: the same edge, its value's name (the tooltip) read again.
  bool setLevelLayout(std::shared_ptr<const layout::LevelLayout> layout);
  void setHighlighted(bool highlighted);
  bool isHighlighted() const { return highlighted_; }

  // Where the label goes. The scene places every label of a level so that none covers another
  // (GraphScene::placeEdgeLabels): each edge offers spots along its path, and a label with no free spot
  // is hidden until the pointer rests on the edge or the edge is selected.
  std::vector<QRectF> labelSpots() const;
  void placeLabel(QPointF topLeft, bool shown);
  QRectF labelRect() const { return labelSize_.isEmpty() ? QRectF() : QRectF(labelAnchor_, labelSize_); }
  // Whether the label is drawn at detail zoom (placed, or shown for the pointer or the selection).
  bool isLabelShown() const { return !label_.empty() && (labelPlaced_ || hovered_ || highlighted_); }
  bool isLabelPlaced() const { return labelPlaced_; }

 protected:
  void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
  void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

 private:
  void updateBounds();
  EdgeLabel withCount(EdgeLabel label) const;
  QString toolTipText() const;

  const SceneState& state_;
  std::shared_ptr<const layout::LevelLayout> layout_;
  size_t index_;
  QPainterPath path_;
  QPolygonF arrow_;
  QPointF labelAnchor_;
  QSizeF labelSize_;
  QRectF bounds_;
  EdgeLabel label_;
  bool labelPlaced_ = true;
  bool hovered_ = false;
  bool highlighted_ = false;
};

class ClusterItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  ClusterItem(const SceneState& state, std::shared_ptr<const layout::LevelLayout> layout, size_t index);

  int type() const override { return Type; }
  QRectF boundingRect() const override { return frame_.adjusted(-1, -1, 1, 1); }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const layout::Cluster& cluster() const { return layout_->level->clusters[index_]; }
  void setLevelLayout(std::shared_ptr<const layout::LevelLayout> layout) { layout_ = std::move(layout); }

 private:
  const SceneState& state_;
  std::shared_ptr<const layout::LevelLayout> layout_;
  size_t index_;
  QRectF frame_;
};

}  // namespace onyx::views
