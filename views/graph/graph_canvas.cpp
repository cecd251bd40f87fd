#include "graph/graph_canvas.h"

#include <QCursor>
#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include "graph/breadcrumb_bar.h"
#include "graph/edge_label.h"
#include "graph/graph_scene.h"
#include "graph/graph_style.h"
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
  scene_->setStyle(GraphStyle::forPalette(palette()));
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

  connect(view_, &GraphView::itemClicked, this, &GraphCanvas::onItemClicked);
  connect(view_, &GraphView::itemDoubleClicked, this, &GraphCanvas::onItemDoubleClicked);
  connect(view_, &GraphView::backRequested, this, &GraphCanvas::back);
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
    scene_->relabelEdges(edgeLabelsFrom(*document_));
  }));
  documentConnections_.push_back(
      connect(document, &ModelDocument::changesSettled, this, &GraphCanvas::onChangesSettled));
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

layout::LevelRequest GraphCanvas::levelRequest() const {
  const LevelFrame& frame = frames_.back();
  layout::LevelRequest request;
  request.graph = frame.graph;
  request.scopePath = frame.scopePath;
  request.expandedScopes = frame.expanded;
  request.expandAll = frame.expandAll;
  request.collapseThreshold = collapseThreshold_;
  request.model = &document_->model();
  return request;
}

void GraphCanvas::requestLevel() {
  if (!document_ || frames_.empty()) return;
  if (job_) job_->cancel();
  job_.reset();
  ++layoutRequests_;
  Q_EMIT layoutRequested();
  const layout::LevelRequest request = levelRequest();
  const uint64_t generation = ++generation_;
  requestedRevision_ = document_->editRevision();
  auto level = buildStyledLevel(request, scopeTreeOf(*request.graph), &document_->shapes());
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
  job_ = service_->submit(layout::LayoutKey::of(request, document_->id(), requestedRevision_), *level, progress,
                          completion, layoutToKeep());
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
  if (document_ && document_->editRevision() != requestedRevision_) {
    // Laid out before an edit whose burst has not settled yet: its nodes may be gone. The job stays pending,
    // so onChangesSettled, queued behind this, asks for the level again.
    return;
  }
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
  scene_->showLayout(shown_, document_ ? edgeLabelsFrom(*document_) : EdgeLabelSource{});
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
  // "shown": constants drawn into their users' boxes are not boxes, so say how many there are besides.
  QString status = tr("%1 nodes shown").arg(level.nodeItemCount());
  if (level.foldedConstants > 0) status += tr(" + %1 constants folded").arg(level.foldedConstants);
  if (size_t groups = level.groupItemCount()) status += tr(", %1 groups").arg(groups);
  status += tr(" · %1 layout").arg(qs(std::string(layout::profileName(shown_->profile))));
  if (shown_->keptItems > 0) status += tr(", %1 boxes kept in place").arg(shown_->keptItems);
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

void GraphCanvas::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange) return;
  const GraphStyle& style = GraphStyle::forPalette(palette());
  if (&style == &scene_->style()) return;
  scene_->setStyle(style);
  if (scene_->levelLayout()) minimap_->refresh();
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
