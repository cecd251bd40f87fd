#include "diffview/diff_window.h"

#include <QAction>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <unordered_map>

#include "analysis/model_graphs.h"
#include "catalog/op_registry.h"
#include "diffview/diff_colors.h"
#include "diffview/diff_list_view.h"
#include "graph/graph_canvas.h"
#include "graph/graph_style.h"
#include "ir/rewriter.h"
#include "shapes/shape_inference.h"

namespace onyx::views {
namespace {

// The fill of every node of one side: the diff's colour for a change, a neutral grey for the unchanged.
std::unordered_map<NodeId, NodeOverlay> overlayOf(const Model& model, const diff::ModelDiff& diff, bool before) {
  const GraphStyle& style = GraphStyle::standard();
  std::unordered_map<NodeId, NodeOverlay> overlay;
  for (const Graph* graph : allGraphs(model)) {
    for (const Node* node : graph->nodes()) {
      const diff::NodeStatus status = before ? diff.statusBefore(node->id()) : diff.statusAfter(node->id());
      NodeOverlay entry;
      entry.fill = nodeStatusColor(status);
      entry.value = 1;  // groups count their changed nodes
      if (!entry.fill.isValid()) {
        const OpSchema* schema = opRegistry().find(node->domain(), node->opType());
        entry.fill = unchangedNodeColor(style.categoryColor(schema ? schema->category : OpCategory::Other));
        entry.value = 0;
      }
      overlay.emplace(node->id(), entry);
    }
  }
  return overlay;
}

std::vector<LegendEntry> legendOf(bool before) {
  std::vector<LegendEntry> legend;
  if (before)
    legend.push_back({diffToneColor(DiffTone::Removed), QObject::tr("removed")});
  else
    legend.push_back({diffToneColor(DiffTone::Added), QObject::tr("added")});
  legend.push_back({diffToneColor(DiffTone::Changed), QObject::tr("changed")});
  return legend;
}

// A group's badge; none for a group of unchanged nodes.
QString changedCount(double count) {
  if (count <= 0) return {};
  return QObject::tr("%1 changed").arg(static_cast<long long>(count));
}

QWidget* titled(const QString& title, GraphCanvas* canvas, QWidget* parent) {
  auto* pane = new QWidget(parent);
  auto* layout = new QVBoxLayout(pane);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), pane);
  layout->addWidget(label);
  layout->addWidget(canvas, 1);
  return pane;
}

}  // namespace

bool focusNode(ModelDocument& document, NodeId id) {
  const Node* node = id == kNoNode ? nullptr : findNodeInModel(document.model(), id);
  if (!node) return false;
  document.focus(Selection{node->graph(), id, nullptr});
  return true;
}

DiffWindow::DiffWindow(const Model& before, const Model& after, const QString& beforeTitle,
                       const QString& afterTitle, diff::MatchBy matchBy, QWidget* parent)
    : QWidget(parent, Qt::Window),
      beforeModel_(Rewriter::copyModel(before)),
      afterModel_(Rewriter::copyModel(after)) {
  setWindowTitle(tr("Diff: %1 → %2").arg(beforeTitle, afterTitle));
  resize(1400, 800);
  beforeDocument_ = new ModelDocument(beforeModel_, beforeTitle, inferShapes(*beforeModel_), this);
  afterDocument_ = new ModelDocument(afterModel_, afterTitle, inferShapes(*afterModel_), this);
  beforeCanvas_ = new GraphCanvas(this);
  afterCanvas_ = new GraphCanvas(this);
  beforeCanvas_->setDocument(beforeDocument_);

  changes_ = new DiffListView(this);
  changes_->compare(beforeModel_, afterModel_, matchBy);
  beforeCanvas_->setNodeOverlay(overlayOf(*beforeModel_, changes_->diff(), true), legendOf(true), changedCount);
  // The after side is laid out around the before side's layout, so the nodes both keep sit at the same
  // places and only what changed is placed anew: it starts once the before side is on screen.
  afterCanvas_->setLayoutLeader(beforeCanvas_);
  auto startAfter = [this] {
    if (afterCanvas_->document()) return;
    afterCanvas_->setDocument(afterDocument_);
    afterCanvas_->setNodeOverlay(overlayOf(*afterModel_, changes_->diff(), false), legendOf(false),
                                 changedCount);
  };
  connect(beforeCanvas_, &GraphCanvas::levelShown, this, startAfter);
  connect(beforeCanvas_, &GraphCanvas::layoutFailed, this, startAfter);

  overlayOption_ = new QCheckBox(tr("Overlay (one canvas)"), this);
  beforeOption_ = new QCheckBox(tr("Show the before graph (removed nodes)"), this);
  connect(overlayOption_, &QCheckBox::toggled, this, &DiffWindow::setOverlayMode);
  connect(beforeOption_, &QCheckBox::toggled, this, &DiffWindow::showBefore);
  connect(changes_, &DiffListView::changeActivated, this, &DiffWindow::onChangeActivated);
  connect(beforeDocument_, &ModelDocument::selectionChanged, this,
          [this] { syncSelection(*beforeDocument_, *afterDocument_, true); });
  connect(afterDocument_, &ModelDocument::selectionChanged, this,
          [this] { syncSelection(*afterDocument_, *beforeDocument_, false); });

  beforePane_ = titled(beforeTitle, beforeCanvas_, this);
  afterPane_ = titled(afterTitle, afterCanvas_, this);
  auto* canvases = new QSplitter(Qt::Horizontal, this);
  canvases->addWidget(beforePane_);
  canvases->addWidget(afterPane_);
  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(overlayOption_);
  sideLayout->addWidget(beforeOption_);
  sideLayout->addWidget(changes_, 1);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(canvases);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 4);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(splitter);
  updatePanes();

  // A window of its own with no menu: Esc or Ctrl+W is the way back to the model.
  auto* closeAction = new QAction(tr("Close the diff"), this);
  closeAction->setShortcuts({QKeySequence(Qt::Key_Escape), QKeySequence(Qt::CTRL | Qt::Key_W)});
  closeAction->setShortcutContext(Qt::WindowShortcut);
  connect(closeAction, &QAction::triggered, this, &QWidget::close);
  addAction(closeAction);
}

DiffWindow::~DiffWindow() {
  // The canvases lay out on workers reading the documents: stop them before the documents go.
  delete beforeCanvas_;
  delete afterCanvas_;
}

const diff::ModelDiff& DiffWindow::diff() const {
  return changes_->diff();
}

void DiffWindow::setOverlayMode(bool overlay) {
  overlay_ = overlay;
  if (overlayOption_->isChecked() != overlay) overlayOption_->setChecked(overlay);
  updatePanes();
}

void DiffWindow::showBefore(bool before) {
  showingBefore_ = before;
  if (beforeOption_->isChecked() != before) beforeOption_->setChecked(before);
  updatePanes();
}

void DiffWindow::updatePanes() {
  beforeOption_->setEnabled(overlay_);
  beforePane_->setVisible(!overlay_ || showingBefore_);
  afterPane_->setVisible(!overlay_ || !showingBefore_);
}

// Selecting a node on one side selects its match on the other and centres it there.
void DiffWindow::syncSelection(ModelDocument& from, ModelDocument& to, bool fromBefore) {
  if (syncing_) return;
  const Selection& selection = from.selection();
  if (selection.node == kNoNode) return;
  const auto& matches = fromBefore ? diff().beforeToAfter : diff().afterToBefore;
  auto match = matches.find(selection.node);
  if (match == matches.end()) return;
  syncing_ = true;
  focusNode(to, match->second);
  syncing_ = false;
}

void DiffWindow::onChangeActivated(int, NodeId beforeNode, NodeId afterNode) {
  if (overlay_) showBefore(afterNode == kNoNode && beforeNode != kNoNode);
  syncing_ = true;
  focusNode(*beforeDocument_, beforeNode);
  focusNode(*afterDocument_, afterNode);
  syncing_ = false;
}

}  // namespace onyx::views
