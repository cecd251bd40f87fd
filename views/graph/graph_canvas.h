#pragma once
// The graph explorer's canvas: the open document's graph as boxes and routed edges, one level at a time.
// A level is a graph (the main graph, an If/Loop/Scan body or a model-local function) seen from a name
// scope; big levels open collapsed to their top scopes. Double-clicking a group opens it as its own level
// (only its interior is laid out), Shift+double-click expands it in place, double-clicking a frame
// collapses it, double-clicking a node with a body enters the body; the breadcrumb bar goes back.
// Layout runs on a LayoutService worker with progress and cancel, and levels are cached.
//
// Edits reach it as bursts (ModelDocument::changesSettled), one decision per burst (graph_canvas_edits.cpp,
// level_patch.h): a burst that added, removed or rewired something in the shown graph lays the level out
// again, once, around the layout on screen (layout/stable_layout.h: what the edit did not touch stays where
// it was, so a pass step or an undo reads as the change it is); one that only renamed, retyped or changed
// attributes patches the text of the boxes and edges it touched in place, with no layout; edits of graphs
// the level does not show change nothing.
//
// Selection is the document's: clicks select through ModelDocument, its selectionChanged highlights, its
// focusRequested centres (opening the body or expanding the group that holds the node first).
#include <QPointer>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph_items.h"
#include "layout/layout_service.h"
#include "model_document.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QFrame;

namespace onyx {
class ScopeTree;
}

namespace onyx::views {

class BreadcrumbBar;
class GraphScene;
class GraphView;
class Minimap;

// One step of the navigation: which graph, seen from which scope, with which groups expanded in place.
struct LevelFrame {
  const Graph* graph = nullptr;
  // How a body frame was reached from the frame before it (re-resolved after edits): the node holding the
  // body and the body's index (attribute subgraphs in order, then the called function). kNoNode for the
  // root frame and for scope frames, which stay in the previous frame's graph.
  NodeId owner = kNoNode;
  int body = -1;
  std::string scopePath;
  std::set<std::string> expanded;
  // The part of `expanded` that focusOn opened to reveal a search hit: closed again at the next focus,
  // so a hit inside a group does not leave it open for good.
  std::set<std::string> revealed;
  bool expandAll = false;
  QString label;
  bool isScopeFrame() const { return owner == kNoNode && !scopePath.empty(); }
};

struct LegendEntry {
  QColor color;
  QString text;
};

class GraphCanvas : public QWidget {
  Q_OBJECT

 public:
  explicit GraphCanvas(QWidget* parent = nullptr);
  ~GraphCanvas() override;

  // Shows the document's main graph (null: nothing). The canvas does not own it.
  void setDocument(ModelDocument* document);
  ModelDocument* document() const { return document_; }

  GraphScene* scene() const { return scene_; }
  GraphView* view() const { return view_; }
  BreadcrumbBar* breadcrumbs() const { return breadcrumbs_; }
  Minimap* minimap() const { return minimap_; }
  layout::LayoutService& layoutService() { return *service_; }

  const std::vector<LevelFrame>& frames() const { return frames_; }
  // The layout on screen (the frames may already name the next one while it is laid out).
  const std::shared_ptr<const layout::LevelLayout>& shownLayout() const;
  bool isLayingOut() const { return job_ != nullptr; }
  // Layouts asked of the layout service (navigation, expansion, structural edits); a patch asks none.
  uint64_t layoutRequestCount() const { return layoutRequests_; }
  // Bursts of edits answered by patching the shown level's text in place.
  uint64_t patchCount() const { return patches_; }
  // The name-scope tree of a graph of the document, built on first use.
  const ScopeTree& scopeTreeOf(const Graph& graph);

  // Lays levels out around the layout `leader` shows for the same level (the same scopes, expansions and
  // bodies), so the boxes both models share sit where the leader has them: the diff window's after side
  // follows its before side. Null: no leader.
  void setLayoutLeader(GraphCanvas* leader) { leader_ = leader; }

  // Levels with more nodes than this open collapsed (LevelRequest::collapseThreshold).
  void setCollapseThreshold(size_t nodes) { collapseThreshold_ = nodes; }

  // Overlays for later views (profiling): per-node fill and label, a legend, and collapsed groups showing
  // the total of their nodes' values formatted by `formatTotal`.
  void setNodeOverlay(std::unordered_map<NodeId, NodeOverlay> overlay, std::vector<LegendEntry> legend = {},
                      std::function<QString(double)> formatTotal = {});
  void clearNodeOverlay();

 public Q_SLOTS:
  void enterScope(const QString& scopePath);
  void expandInPlace(const QString& scopePath);
  // Collapses a scope expanded in place; for the scope the level shows, goes back a step.
  void collapse(const QString& scopePath);
  // Enters body `index` of a node of the current graph (its If/Loop/Scan graphs in attribute order, then
  // the model-local function it calls). False when it has no such body.
  bool enterBody(NodeId node, int index = 0);
  // Goes back to frame `index` (0: the main graph).
  void navigateTo(int index);
  void back();
  void fitToView();
  void cancelLayout();
  void focusOn(const Selection& selection);

 Q_SIGNALS:
  void levelShown();  // a layout is on screen, after every navigation, expansion or structural edit
  void layoutRequested();  // a layout of the current frames was asked for (one per layoutRequestCount)
  // An edit's new text is on screen without a layout; `items` boxes and edges changed.
  void levelPatched(size_t items);
  void layoutFailed(const QString& message);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  // A new application palette (Theme > Dark, or the desktop's): the canvas takes the matching style.
  void changeEvent(QEvent* event) override;

 private:
  layout::LevelRequest levelRequest() const;  // for the last frame
  void requestLevel();
  // The layout the next one should keep positions from: the one on screen when it shows the asked-for
  // level (an edit), else the leader's when it shows the same level; null: lay out afresh.
  std::shared_ptr<const layout::LevelLayout> layoutToKeep() const;
  void onChangesSettled(const std::vector<ChangeEvent>& events);
  // Patches the shown level's text from a level built afresh; false when that needs a layout instead.
  bool patchShownLevel();
  void onLayoutSettled(uint64_t generation, const layout::LayoutOutcome& outcome, bool cancelled);
  void onProgress(uint64_t generation, layout::LayoutPhase phase, double fraction);
  void onItemClicked(QGraphicsItem* item, Qt::KeyboardModifiers modifiers);
  void onItemDoubleClicked(QGraphicsItem* item, Qt::KeyboardModifiers modifiers);
  void applySelection();
  void applyOverlay();
  bool centreOn(const Selection& selection);
  void updateChrome();
  void placeOverlays();
  void showMessage(const QString& text);
  // Re-finds every frame's graph after an edit (and a body frame's label, its owner may be renamed);
  // drops the frames that no longer exist.
  void resolveFrames();
  std::vector<LevelFrame> framesTo(const Graph& graph) const;
  LevelFrame bodyFrame(const Node& owner, int body) const;
  const Graph* bodyGraph(const Node& owner, int body) const;

  QPointer<ModelDocument> document_;
  QPointer<GraphCanvas> leader_;
  std::vector<QMetaObject::Connection> documentConnections_;
  GraphScene* scene_ = nullptr;
  GraphView* view_ = nullptr;
  BreadcrumbBar* breadcrumbs_ = nullptr;
  Minimap* minimap_ = nullptr;
  QLabel* statusLabel_ = nullptr;
  QLabel* legend_ = nullptr;
  QLabel* message_ = nullptr;
  QFrame* progressPanel_ = nullptr;
  QLabel* progressText_ = nullptr;
  QProgressBar* progressBar_ = nullptr;

  std::vector<LevelFrame> frames_;       // what is asked for
  std::vector<LevelFrame> shownFrames_;  // what is on screen (restored when a layout is cancelled)
  std::shared_ptr<const layout::LevelLayout> shown_;
  std::shared_ptr<layout::LayoutJob> job_;
  uint64_t generation_ = 0;      // bumped per request; results of older ones are dropped
  // The document's edit revision the pending layout was built at (not bumped by re-inference: shapes only
  // relabel). It keys the layout cache, and a layout that lands after an edit holds nodes the edit may have
  // removed: it is asked for again instead of shown.
  uint64_t requestedRevision_ = 0;
  uint64_t layoutRequests_ = 0;
  uint64_t patches_ = 0;
  size_t collapseThreshold_ = layout::kDefaultCollapseThreshold;
  bool fitAfterLayout_ = true;
  std::optional<Selection> pendingFocus_;
  std::unordered_map<const Graph*, std::unique_ptr<ScopeTree>> scopeTrees_;
  std::unordered_map<NodeId, NodeOverlay> overlay_;
  std::function<QString(double)> formatTotal_;
  // Last: destroyed first, so its worker stops before anything it calls back into goes away.
  std::unique_ptr<layout::LayoutService> service_;
};

}  // namespace onyx::views
