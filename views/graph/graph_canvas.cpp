#include "graph/graph_canvas.h"

#include <QCursor>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "graph/breadcrumb_bar.h"
#include "graph/edge_label.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/level_source.h"
#include "graph/minimap.h"
#include "ir/model.h"
#include "ir/scopes.h"

namespace onyx::views {
namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// Whether a node in scope `nodeScope` lies in the scope `shown` or below it.
bool scopeHolds(std::string_view shown, std::string_view nodeScope) {
  if (shown.empty()) return true;
  return nodeScope == shown || (nodeScope.size() > shown.size() &&
                                nodeScope.substr(0, shown.size()) == shown && nodeScope[shown.size()] == '/');
}

QString lastComponent(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return qs(slash == std::string::npos ? path : path.substr(slash + 1));
}

int progressPercent(layout::LayoutPhase phase, double fraction) {
  switch (phase) {
    case layout::LayoutPhase::Queued:
      return 2;
    case layout::LayoutPhase::Building:
      return 5 + static_cast<int>(10 * fraction);
    case layout::LayoutPhase::RunningDot:
      return 15 + static_cast<int>(70 * fraction);
    case layout::LayoutPhase::Reading:
      return 85 + static_cast<int>(15 * fraction);
    default:
      return 100;
  }
}

}  // namespace

GraphCanvas::GraphCanvas(QWidget* parent)
    : QWidget(parent), service_(std::make_unique<layout::LayoutService>()) {
  scene_ = new GraphScene(this);
  view_ = new GraphView(this);
  view_->setScene(scene_);
  breadcrumbs_ = new BreadcrumbBar(this);
  statusLabel_ = new QLabel(this);
  statusLabel_->setObjectName(QStringLiteral("canvasStatus"));
  auto toolButton = [this](const QString& text, const QString& tip, auto slot) {
    auto* button = new QToolButton(this);
    button->setText(text);
    button->setToolTip(tip);
    button->setAutoRaise(true);
    connect(button, &QToolButton::clicked, this, slot);
    return button;
  };
  auto* top = new QHBoxLayout;
  top->setContentsMargins(2, 2, 2, 2);
  top->addWidget(breadcrumbs_, 1);
  top->addWidget(statusLabel_);
  top->addWidget(toolButton(QStringLiteral("−"), tr("Zoom out (-)"), [this] { view_->zoomBy(0.8); }));
  top->addWidget(toolButton(QStringLiteral("+"), tr("Zoom in (+)"), [this] { view_->zoomBy(1.25); }));
  top->addWidget(toolButton(tr("Fit"), tr("Fit to view (F)"), [this] { fitToView(); }));
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  column->addLayout(top);
  column->addWidget(view_, 1);

  minimap_ = new Minimap(view_, this);
  minimap_->hide();
  legend_ = new QLabel(this);
  legend_->setObjectName(QStringLiteral("canvasLegend"));
  legend_->setStyleSheet(
      QStringLiteral("background: rgba(255,255,255,230); border: 1px solid #aab; padding: 4px;"));
  legend_->hide();
  message_ = new QLabel(this);
  message_->setAlignment(Qt::AlignCenter);
  message_->setWordWrap(true);
  message_->hide();

  progressPanel_ = new QFrame(this);
  progressPanel_->setObjectName(QStringLiteral("layoutProgress"));
  progressPanel_->setFrameShape(QFrame::StyledPanel);
  progressPanel_->setAutoFillBackground(true);
  progressText_ = new QLabel(progressPanel_);
  progressBar_ = new QProgressBar(progressPanel_);
  progressBar_->setRange(0, 100);
  auto* cancel = new QPushButton(tr("Cancel"), progressPanel_);
  connect(cancel, &QPushButton::clicked, this, &GraphCanvas::cancelLayout);
  auto* progressLayout = new QVBoxLayout(progressPanel_);
  progressLayout->addWidget(progressText_);
  auto* progressRow = new QHBoxLayout;
  progressRow->addWidget(progressBar_, 1);
  progressRow->addWidget(cancel);
  progressLayout->addLayout(progressRow);
  progressPanel_->resize(360, 80);
  progressPanel_->hide();

  relayoutTimer_ = new QTimer(this);
  relayoutTimer_->setSingleShot(true);
  relayoutTimer_->setInterval(0);
  connect(relayoutTimer_, &QTimer::timeout, this, &GraphCanvas::onModelChanged);

  connect(view_, &GraphView::itemClicked, this, &GraphCanvas::onItemClicked);
  connect(view_, &GraphView::itemDoubleClicked, this, &GraphCanvas::onItemDoubleClicked);
  connect(breadcrumbs_, &BreadcrumbBar::crumbClicked, this, &GraphCanvas::navigateTo);
  updateChrome();
}

GraphCanvas::~GraphCanvas() {
  if (job_) job_->cancel();
  service_.reset();  // waits for a running dot call; its callbacks find this object still whole
}

const std::shared_ptr<const layout::LevelLayout>& GraphCanvas::shownLayout() const {
  return shown_;
}

void GraphCanvas::setDocument(ModelDocument* document) {
  for (const QMetaObject::Connection& connection : documentConnections_) disconnect(connection);
  documentConnections_.clear();
  cancelLayout();
  document_ = document;
  scopeTrees_.clear();
  overlay_.clear();
  frames_.clear();
  shownFrames_.clear();
  shown_.reset();
  scene_->clearLayout();
  minimap_->refresh();
  if (!document) {
    updateChrome();
    return;
  }
  documentConnections_.push_back(
      connect(document, &ModelDocument::selectionChanged, this, [this] { applySelection(); }));
  documentConnections_.push_back(
      connect(document, &ModelDocument::focusRequested, this, &GraphCanvas::focusOn));
  documentConnections_.push_back(connect(document, &ModelDocument::shapesChanged, this, [this] {
    scene_->relabelEdges(edgeLabelsFrom(&document_->shapes()));
  }));
  documentConnections_.push_back(
      connect(document, &ModelDocument::modelChanged, relayoutTimer_, qOverload<>(&QTimer::start)));
  LevelFrame root;
  root.graph = &document->model().graph();
  root.label =
      document->model().graph().name().empty() ? tr("main graph") : qs(document->model().graph().name());
  frames_.push_back(root);
  fitAfterLayout_ = true;
  requestLevel();
}

const ScopeTree& GraphCanvas::scopeTreeOf(const Graph& graph) {
  auto& tree = scopeTrees_[&graph];
  if (!tree) tree = std::make_unique<ScopeTree>(ScopeTree::build(graph));
  return *tree;
}

void GraphCanvas::requestLevel() {
  if (!document_ || frames_.empty()) return;
  if (job_) job_->cancel();
  job_.reset();
  const LevelFrame& frame = frames_.back();
  layout::LevelRequest request;
  request.graph = frame.graph;
  request.scopePath = frame.scopePath;
  request.expandedScopes = frame.expanded;
  request.expandAll = frame.expandAll;
  request.collapseThreshold = collapseThreshold_;
  request.model = &document_->model();
  const uint64_t generation = ++generation_;
  auto level = buildStyledLevel(request, scopeTreeOf(*frame.graph), &document_->shapes());
  if (!level) {
    showMessage(qs(level.error().toString()));
    Q_EMIT layoutFailed(qs(level.error().toString()));
    frames_ = shownFrames_;
    updateChrome();
    return;
  }
  const size_t items = (*level)->items.size();
  const size_t edges = (*level)->edges.size();
  QPointer<GraphCanvas> self(this);
  auto progress = [self, generation](layout::LayoutPhase phase, double fraction) {
    if (!self) return;
    QMetaObject::invokeMethod(
        self,
        [self, generation, phase, fraction] {
          if (self) self->onProgress(generation, phase, fraction);
        },
        Qt::QueuedConnection);
  };
  auto completion = [self, generation](const layout::LayoutOutcome& outcome) {
    if (!self) return;
    // The job may still be cancelled: `outcome` then holds the cancellation error.
    bool cancelled = !outcome && outcome.error().message.find("cancel") != std::string::npos;
    QMetaObject::invokeMethod(
        self,
        [self, generation, outcome, cancelled] {
          if (self) self->onLayoutSettled(generation, outcome, cancelled);
        },
        Qt::QueuedConnection);
  };
  job_ = service_->submit(layout::LayoutKey::of(request, document_->id(), layoutRevision_), *level, progress,
                          completion);
  if (!job_->fromCache()) {
    progressText_->setText(tr("Laying out %1 boxes and %2 edges...").arg(items).arg(edges));
    progressBar_->setValue(0);
    placeOverlays();
    progressPanel_->show();
    progressPanel_->raise();
  }
  updateChrome();
}

void GraphCanvas::onProgress(uint64_t generation, layout::LayoutPhase phase, double fraction) {
  if (generation != generation_ || !job_) return;
  progressBar_->setValue(progressPercent(phase, fraction));
  if (phase == layout::LayoutPhase::RunningDot) {
    progressText_->setText(progressText_->text().section(QLatin1Char('\n'), 0, 0) + "\n" + tr("running dot"));
  }
}

void GraphCanvas::onLayoutSettled(uint64_t generation, const layout::LayoutOutcome& outcome, bool cancelled) {
  if (generation != generation_) return;
  job_.reset();
  progressPanel_->hide();
  if (!outcome) {
    frames_ = shownFrames_;  // back to what is on screen
    pendingFocus_.reset();
    updateChrome();
    if (!cancelled) {
      showMessage(tr("Layout failed: %1").arg(qs(outcome.error().toString())));
      Q_EMIT layoutFailed(qs(outcome.error().toString()));
    }
    return;
  }
  message_->hide();
  const bool sameLevel = !shownFrames_.empty() && shownFrames_.size() == frames_.size() &&
                         shownFrames_.back().graph == frames_.back().graph &&
                         shownFrames_.back().scopePath == frames_.back().scopePath;
  const QPointF centre = view_->visibleSceneRect().center();
  const double scale = view_->scale();
  shown_ = *outcome;
  shownFrames_ = frames_;
  scene_->showLayout(shown_, document_ ? edgeLabelsFrom(&document_->shapes()) : EdgeLabelSource{});
  applySelection();
  applyOverlay();
  minimap_->refresh();
  placeOverlays();
  if (pendingFocus_) {
    Selection focus = *pendingFocus_;
    pendingFocus_.reset();
    if (!centreOn(focus)) view_->fitToView();
  } else if (fitAfterLayout_ || !sameLevel) {
    view_->fitToView();
  } else {
    // The same level again (an expansion in place, an edit): keep the view where it was.
    view_->setTransform(QTransform::fromScale(scale, scale));
    view_->centerOn(centre);
  }
  fitAfterLayout_ = false;
  updateChrome();
  Q_EMIT levelShown();
}

void GraphCanvas::cancelLayout() {
  if (!job_) return;
  job_->cancel();
  job_.reset();
  ++generation_;
  progressPanel_->hide();
  frames_ = shownFrames_;
  pendingFocus_.reset();
  updateChrome();
}

void GraphCanvas::updateChrome() {
  QStringList crumbs;
  for (const LevelFrame& frame : frames_) crumbs << frame.label;
  breadcrumbs_->setCrumbs(crumbs);
  if (!shown_) {
    statusLabel_->clear();
    return;
  }
  const layout::LevelView& level = *shown_->level;
  QString status = tr("%1 nodes").arg(level.nodeItemCount());
  if (size_t groups = level.groupItemCount()) status += tr(", %1 groups").arg(groups);
  status += tr(" · %1 layout").arg(qs(std::string(layout::profileName(shown_->profile))));
  statusLabel_->setText(status);
}

void GraphCanvas::showMessage(const QString& text) {
  message_->setText(text);
  placeOverlays();
  message_->show();
  message_->raise();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placeOverlays();
}

void GraphCanvas::placeOverlays() {
  const QRect area = view_->geometry();
  progressPanel_->move(area.center() - QPoint(progressPanel_->width() / 2, progressPanel_->height() / 2));
  message_->setGeometry(area.adjusted(40, 40, -40, -40));
  minimap_->move(area.right() - minimap_->width() - 18, area.bottom() - minimap_->height() - 18);
  minimap_->raise();
  legend_->adjustSize();
  legend_->move(area.right() - legend_->width() - 18, area.top() + 8);
  legend_->raise();
}

void GraphCanvas::fitToView() {
  view_->fitToView();
}

// --- navigation ---

const Graph* GraphCanvas::bodyGraph(const Node& owner, int body) const {
  std::vector<Graph*> graphs = owner.subgraphs();
  if (body >= 0 && static_cast<size_t>(body) < graphs.size()) return graphs[static_cast<size_t>(body)];
  if (document_ && static_cast<size_t>(body) == graphs.size()) {
    const Function* function =
        document_->model().findFunction(owner.domain(), owner.opType(), owner.overload());
    if (function) return function->body.get();
  }
  return nullptr;
}

LevelFrame GraphCanvas::bodyFrame(const Node& owner, int body) const {
  LevelFrame frame;
  frame.graph = bodyGraph(owner, body);
  frame.owner = owner.id();
  frame.body = body;
  std::vector<Graph*> graphs = owner.subgraphs();
  QString what;
  if (static_cast<size_t>(body) < graphs.size()) {
    int index = 0;
    for (const Attribute& attribute : owner.attributes()) {
      for (size_t i = 0; i < attribute.subgraphs().size(); ++i, ++index) {
        if (index == body) what = qs(attribute.name());
      }
    }
  } else {
    what = tr("function");
  }
  QString node =
      owner.name().empty() ? qs(owner.opType()) : qs(owner.opType()) + " " + lastComponent(owner.name());
  frame.label = node + ": " + what;
  return frame;
}

void GraphCanvas::enterScope(const QString& scopePath) {
  if (frames_.empty()) return;
  LevelFrame frame;
  frame.graph = frames_.back().graph;
  frame.scopePath = scopePath.toStdString();
  frame.label = lastComponent(frame.scopePath);
  frames_.push_back(frame);
  fitAfterLayout_ = true;
  requestLevel();
}

void GraphCanvas::expandInPlace(const QString& scopePath) {
  if (frames_.empty()) return;
  frames_.back().expanded.insert(scopePath.toStdString());
  frames_.back().revealed.erase(scopePath.toStdString());  // asked for: it stays open
  requestLevel();
}

void GraphCanvas::collapse(const QString& scopePath) {
  if (frames_.empty()) return;
  const std::string path = scopePath.toStdString();
  LevelFrame& frame = frames_.back();
  if (frame.expanded.contains(path)) {
    std::erase_if(frame.expanded, [&](const std::string& expanded) { return scopeHolds(path, expanded); });
    std::erase_if(frame.revealed, [&](const std::string& revealed) { return scopeHolds(path, revealed); });
    requestLevel();
  } else if (frame.isScopeFrame() && frame.scopePath == path) {
    back();
  }
}

bool GraphCanvas::enterBody(NodeId nodeId, int index) {
  if (frames_.empty()) return false;
  const Node* node = frames_.back().graph->findNode(nodeId);
  if (!node || !bodyGraph(*node, index)) return false;
  frames_.push_back(bodyFrame(*node, index));
  fitAfterLayout_ = true;
  requestLevel();
  return true;
}

void GraphCanvas::navigateTo(int index) {
  if (index < 0 || static_cast<size_t>(index) + 1 >= frames_.size()) return;
  frames_.resize(static_cast<size_t>(index) + 1);
  fitAfterLayout_ = true;
  requestLevel();
}

void GraphCanvas::back() {
  navigateTo(static_cast<int>(frames_.size()) - 2);
}

void GraphCanvas::resolveFrames() {
  if (!document_ || frames_.empty()) return;
  frames_.front().graph = &document_->model().graph();
  for (size_t i = 1; i < frames_.size(); ++i) {
    LevelFrame& frame = frames_[i];
    const Graph* previous = frames_[i - 1].graph;
    if (frame.owner != kNoNode) {
      const Node* owner = previous->findNode(frame.owner);
      frame.graph = owner ? bodyGraph(*owner, frame.body) : nullptr;
    } else {
      frame.graph = previous;
      if (!scopeTreeOf(*previous).find(frame.scopePath)) frame.graph = nullptr;
    }
    if (!frame.graph) {
      frames_.resize(i);
      break;
    }
  }
}

void GraphCanvas::onModelChanged() {
  if (!document_) return;
  ++layoutRevision_;
  scopeTrees_.clear();
  resolveFrames();
  requestLevel();
}

// The frames from the main graph to `graph`: through the bodies that hold it, or a call of the function
// whose body it is.
std::vector<LevelFrame> GraphCanvas::framesTo(const Graph& graph) const {
  std::vector<std::pair<const Node*, int>> steps;  // innermost first
  const Graph* walk = &graph;
  while (walk && walk->owner()) {
    const Node* owner = walk->owner();
    std::vector<Graph*> graphs = owner->subgraphs();
    int index = static_cast<int>(std::find(graphs.begin(), graphs.end(), walk) - graphs.begin());
    steps.emplace_back(owner, index);
    walk = owner->graph();
  }
  const Graph& main = document_->model().graph();
  if (walk != &main) {
    // A function body: enter it from its first call in the main graph.
    const Node* call = nullptr;
    for (const Node* node : main.nodes()) {
      const Function* function =
          document_->model().findFunction(node->domain(), node->opType(), node->overload());
      if (function && function->body.get() == walk) {
        call = node;
        break;
      }
    }
    if (!call) return {};
    steps.emplace_back(call, static_cast<int>(call->subgraphs().size()));
  }
  std::vector<LevelFrame> frames{frames_.front()};
  frames.front().scopePath.clear();
  frames.front().graph = &main;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    frames.push_back(bodyFrame(*it->first, it->second));
  return frames;
}

void GraphCanvas::focusOn(const Selection& selection) {
  if (!document_ || frames_.empty() || selection.empty()) return;
  const Graph* graph = selection.graph ? selection.graph : &document_->model().graph();
  const Node* node = selection.node != kNoNode ? graph->findNode(selection.node) : nullptr;
  for (LevelFrame& frame : frames_) {  // close what the previous focus opened
    for (const std::string& path : frame.revealed) frame.expanded.erase(path);
    frame.revealed.clear();
  }
  if (!node && selection.value && selection.value->producer() &&
      selection.value->producer()->graph() == graph) {
    node = selection.value->producer();
  }
  if (frames_.back().graph != graph) {
    std::vector<LevelFrame> path = framesTo(*graph);
    if (path.empty()) return;
    // Keep the current frames when they already lead into that graph (only scope frames differ).
    size_t keep = 0;
    for (size_t i = 0; i < frames_.size(); ++i) {
      if (frames_[i].graph == graph && !frames_[i].isScopeFrame()) keep = i + 1;
    }
    if (keep) {
      frames_.resize(keep);
    } else {
      frames_ = path;
    }
  }
  if (node) {
    std::string nodeScope(node->scopePath());
    const ScopeTree& tree = scopeTreeOf(*graph);
    if (const Scope* scope = tree.scopeOf(node->id())) nodeScope = scope->path;
    while (frames_.size() > 1 && frames_.back().isScopeFrame() &&
           !scopeHolds(frames_.back().scopePath, nodeScope)) {
      frames_.pop_back();
    }
    LevelFrame& frame = frames_.back();
    const Scope* shown = tree.find(frame.scopePath);
    bool flat = frame.expandAll || (shown && shown->totalNodes <= collapseThreshold_);
    if (!flat) {
      const Scope* start = layout::effectiveScope(tree, frame.scopePath);
      for (const Scope* walk = tree.scopeOf(node->id()); walk && walk != start; walk = walk->parent) {
        if (frame.expanded.insert(walk->path).second) frame.revealed.insert(walk->path);
      }
    }
  }
  bool same = frames_.size() == shownFrames_.size() && !isLayingOut();
  for (size_t i = 0; same && i < frames_.size(); ++i) {
    same = frames_[i].graph == shownFrames_[i].graph && frames_[i].scopePath == shownFrames_[i].scopePath &&
           frames_[i].expanded == shownFrames_[i].expanded;
  }
  if (same && centreOn(selection)) return;
  pendingFocus_ = selection;
  requestLevel();
}

bool GraphCanvas::centreOn(const Selection& selection) {
  const Graph* graph =
      selection.graph ? selection.graph : (document_ ? &document_->model().graph() : nullptr);
  if (!shown_ || shown_->level->graph != graph) return false;
  if (selection.node != kNoNode) {
    if (BoxItem* box = scene_->boxForNode(selection.node)) {
      view_->centerOnRect(box->box());
      return true;
    }
  }
  if (selection.value) {
    std::vector<EdgeItem*> edges = scene_->edgesForValue(selection.value);
    if (!edges.empty()) {
      view_->centerOnRect(edges.front()->boundingRect());
      return true;
    }
    if (const Node* producer = selection.value->producer()) {
      if (BoxItem* box = scene_->boxForNode(producer->id())) {
        view_->centerOnRect(box->box());
        return true;
      }
    }
  }
  return false;
}

// --- selection ---

void GraphCanvas::applySelection() {
  if (!document_ || !shown_) return;
  const Selection& selection = document_->selection();
  const Graph* graph = selection.graph ? selection.graph : &document_->model().graph();
  if (graph != shown_->level->graph) {
    scene_->highlight(kNoNode, nullptr);
    return;
  }
  scene_->highlight(selection.node, selection.value);
}

void GraphCanvas::onItemClicked(QGraphicsItem* item, Qt::KeyboardModifiers) {
  if (!document_ || !shown_) return;
  const Graph* graph = shown_->level->graph;
  if (!item) {
    document_->clearSelection();
    return;
  }
  if (item->type() == BoxItem::Type) {
    auto* box = static_cast<BoxItem*>(item);
    const layout::Item& levelItem = box->levelItem();
    if (box->nodeId() != kNoNode) {
      document_->select(Selection{graph, box->nodeId(), nullptr});
    } else if (levelItem.value) {
      document_->select(Selection{graph, kNoNode, levelItem.value});
    } else {
      document_->clearSelection();
    }
  } else if (item->type() == EdgeItem::Type) {
    document_->select(Selection{graph, kNoNode, static_cast<EdgeItem*>(item)->levelEdge().value});
  } else {
    document_->clearSelection();
  }
}

void GraphCanvas::onItemDoubleClicked(QGraphicsItem* item, Qt::KeyboardModifiers modifiers) {
  if (!item) {
    fitToView();
    return;
  }
  if (item->type() == ClusterItem::Type) {
    collapse(qs(static_cast<ClusterItem*>(item)->cluster().scopePath));
    return;
  }
  if (item->type() != BoxItem::Type) return;
  const layout::Item& levelItem = static_cast<BoxItem*>(item)->levelItem();
  if (levelItem.kind == layout::ItemKind::Group) {
    if (modifiers & Qt::ShiftModifier) {
      expandInPlace(qs(levelItem.scopePath));
    } else {
      enterScope(qs(levelItem.scopePath));
    }
    return;
  }
  const NodeId node = static_cast<BoxItem*>(item)->nodeId();
  if (node == kNoNode || levelItem.bodies.empty()) return;
  if (levelItem.bodies.size() == 1) {
    enterBody(node, 0);
    return;
  }
  QMenu menu(this);
  for (size_t i = 0; i < levelItem.bodies.size(); ++i) {
    menu.addAction(qs(levelItem.bodies[i].label), this,
                   [this, node, i] { enterBody(node, static_cast<int>(i)); });
  }
  menu.exec(QCursor::pos());
}

// --- overlays ---

void GraphCanvas::setNodeOverlay(std::unordered_map<NodeId, NodeOverlay> overlay,
                                 std::vector<LegendEntry> legend,
                                 std::function<QString(double)> formatTotal) {
  overlay_ = std::move(overlay);
  formatTotal_ = std::move(formatTotal);
  QString html;
  for (const LegendEntry& entry : legend) {
    html += QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> %2<br>")
                .arg(entry.color.name(), entry.text.toHtmlEscaped());
  }
  legend_->setText(html);
  legend_->setVisible(!legend.empty());
  applyOverlay();
  minimap_->refresh();  // its thumbnail is a picture: repaint it in the overlay's colours
  placeOverlays();
}

void GraphCanvas::clearNodeOverlay() {
  setNodeOverlay({});
}

void GraphCanvas::applyOverlay() {
  if (!shown_) return;
  if (overlay_.empty()) {
    scene_->clearOverlay();
    return;
  }
  scene_->setOverlay(overlay_, &scopeTreeOf(*shown_->level->graph), formatTotal_);
}

}  // namespace onyx::views
