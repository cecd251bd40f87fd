#pragma once
// A QGraphicsScene holding one laid-out level: a BoxItem per level item, an EdgeItem per edge and a
// ClusterItem per inline-expanded scope. The canvas and `onyx render` both draw through it. It is a
// projection of the model: rebuilt from a LevelLayout, never edited.
#include <QGraphicsScene>
#include <QLineF>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/edge_label.h"
#include "graph/graph_items.h"
#include "layout/layout_result.h"

namespace onyx {
class ScopeTree;
}

namespace onyx::views {

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(QObject* parent = nullptr);

  // Replaces the items with those of `layout`; edge labels come from `labels` (shape inference).
  void showLayout(std::shared_ptr<const layout::LevelLayout> layout, const EdgeLabelSource& labels);
  void clearLayout();
  const std::shared_ptr<const layout::LevelLayout>& levelLayout() const { return layout_; }

  // Re-reads every edge label (after shape inference ran again); boxes and edges keep their places, the
  // labels are placed again (their sizes changed).
  void relabelEdges(const EdgeLabelSource& labels);
  // Places every edge label where it covers no box and no label placed before it (edges in level order),
  // at the first free spot the edge offers; a label without one is hidden until hovered or selected.
  // Returns how many were hidden.
  size_t placeEdgeLabels();
  // Swaps in the same level with new text (patchedLayout: an edit that added, removed and rewired nothing)
  // and repaints only the boxes and edges whose text changed; nothing moves. Returns how many changed.
  size_t patchLevel(std::shared_ptr<const layout::LevelLayout> layout, const EdgeLabelSource& labels);

  // The look every item draws with (GraphStyle::standard() until set): the canvas follows the palette.
  void setStyle(const GraphStyle& style);
  const GraphStyle& style() const { return *state_.style; }

  // Draw every label whatever the scale (vector output, where the reader zooms).
  void setFullDetail(bool full) { state_.fullDetail = full; }

  // Overview mode, for scales where boxes are a few pixels: the items are hidden and the scene draws every
  // box as a plain rectangle and every edge as a line, batched by colour, in its background. Items at that
  // scale would draw the same, but one by one: with 10k items on screen the per-item cost is the frame.
  void setOverview(bool overview);
  bool isOverview() const { return overview_; }
  // Whether a view at this scale should use overview mode.
  bool wantsOverview(double scale) const { return scale < state_.style->outlineLod; }

  const std::vector<BoxItem*>& boxes() const { return boxes_; }
  const std::vector<EdgeItem*>& edges() const { return edges_; }
  const std::vector<ClusterItem*>& clusters() const { return clusters_; }
  size_t nodeItemCount() const;
  BoxItem* boxForNode(NodeId node) const;
  BoxItem* boxForKey(const std::string& key) const;
  // The edges carrying `value` (an edge between groups also counts when it is the first value).
  std::vector<EdgeItem*> edgesForValue(const Value* value) const;

  // Highlights a node's box or a value's edges; nothing when null.
  void highlight(NodeId node, const Value* value);

  // Per-node overlays; a collapsed group shows the sum of its nodes' values (formatted by `formatTotal`)
  // in the fill of its largest member. `scopes` is the tree of the shown graph.
  void setOverlay(const std::unordered_map<NodeId, NodeOverlay>& overlay, const ScopeTree* scopes,
                  const std::function<QString(double)>& formatTotal);
  void clearOverlay();

 protected:
  void drawBackground(QPainter* painter, const QRectF& rect) override;

 private:
  void rebuildOverview();

  SceneState state_;
  bool overview_ = false;
  bool overviewDirty_ = true;
  std::vector<std::pair<QColor, std::vector<QRectF>>> overviewBoxes_;  // by fill colour
  std::vector<QLineF> overviewEdges_;
  std::vector<QLineF> overviewHighlightedEdges_;
  QRectF overviewSelection_;  // the selected box, ringed in the overview; null for none
  std::shared_ptr<const layout::LevelLayout> layout_;
  std::vector<BoxItem*> boxes_;
  std::vector<EdgeItem*> edges_;
  std::vector<ClusterItem*> clusters_;
  std::unordered_map<NodeId, BoxItem*> boxByNode_;
  std::unordered_map<std::string, BoxItem*> boxByKey_;
  std::unordered_map<const Value*, std::vector<EdgeItem*>> edgesByValue_;
  BoxItem* highlightedBox_ = nullptr;
  std::vector<EdgeItem*> highlightedEdges_;
};

}  // namespace onyx::views
