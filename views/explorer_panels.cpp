#include "explorer_panels.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>

#include "explorer_text.h"
#include "inspector_view.h"
#include "onnx_text_dialog.h"
#include "search_bar.h"
#include "unknown_dims_view.h"

namespace onyx::views {

ExplorerPanels::ExplorerPanels(QMainWindow* window) : QObject(window), window_(window) {
  inspector_ = new InspectorView(window);
  inspectorDock_ = new QDockWidget(tr("Inspector"), window);
  inspectorDock_->setObjectName(QStringLiteral("inspectorDock"));
  inspectorDock_->setWidget(inspector_);
  window->addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);

  unknownDims_ = new UnknownDimsView(window);
  unknownDimsDock_ = new QDockWidget(tr("Unknown Dims"), window);
  unknownDimsDock_->setObjectName(QStringLiteral("unknownDimsDock"));
  unknownDimsDock_->setWidget(unknownDims_);
  window->addDockWidget(Qt::RightDockWidgetArea, unknownDimsDock_);

  searchBar_ = new SearchBar(window);
  searchToolBar_ = new QToolBar(tr("Find"), window);
  searchToolBar_->setObjectName(QStringLiteral("findToolBar"));
  searchToolBar_->setMovable(false);
  searchToolBar_->addWidget(searchBar_);
  window->addToolBar(Qt::TopToolBarArea, searchToolBar_);
  searchToolBar_->hide();
  connect(searchBar_, &SearchBar::dismissed, searchToolBar_, &QWidget::hide);

  // Actions live on the window so their shortcuts work wherever the focus is in it.
  find_ = new QAction(tr("&Find..."), window);
  find_->setShortcut(QKeySequence::Find);
  connect(find_, &QAction::triggered, this, &ExplorerPanels::showSearch);
  findNext_ = new QAction(tr("Find &Next"), window);
  findNext_->setShortcut(QKeySequence(Qt::Key_F3));
  connect(findNext_, &QAction::triggered, searchBar_, &SearchBar::next);
  findPrevious_ = new QAction(tr("Find &Previous"), window);
  findPrevious_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
  connect(findPrevious_, &QAction::triggered, searchBar_, &SearchBar::previous);
  copyName_ = new QAction(tr("Copy &Name"), window);
  copyName_->setShortcut(QKeySequence::Copy);
  connect(copyName_, &QAction::triggered, this, &ExplorerPanels::copySelectionName);
  viewModelText_ = new QAction(tr("View Model as ONNX &Text"), window);
  connect(viewModelText_, &QAction::triggered, this, &ExplorerPanels::showModelText);
  viewGraphText_ = new QAction(tr("View Selected &Graph as ONNX Text"), window);
  connect(viewGraphText_, &QAction::triggered, this, &ExplorerPanels::showSelectedGraphText);
  window->addActions({find_, findNext_, findPrevious_, copyName_, viewModelText_, viewGraphText_});

  setDocument(nullptr);
}

void ExplorerPanels::addActions(QMenu* edit, QMenu* view) {
  edit->addSeparator();
  edit->addActions({copyName_, find_, findNext_, findPrevious_});
  view->addActions({viewModelText_, viewGraphText_});
}

void ExplorerPanels::setDocument(ModelDocument* document) {
  if (document_) disconnect(document_, nullptr, this, nullptr);
  document_ = document;
  inspector_->setDocument(document);
  unknownDims_->setDocument(document);
  searchBar_->setDocument(document);
  if (document_) connect(document_, &ModelDocument::selectionChanged, this, &ExplorerPanels::updateActions);
  updateActions();
}

void ExplorerPanels::updateActions() {
  const bool open = document_ != nullptr;
  for (QAction* action : {find_, findNext_, findPrevious_, viewModelText_}) action->setEnabled(open);
  const bool selected = open && !document_->selection().empty();
  copyName_->setEnabled(selected);
  viewGraphText_->setEnabled(selected);
}

void ExplorerPanels::showSearch() {
  if (!document_) return;
  searchToolBar_->show();
  searchBar_->activate();
}

void ExplorerPanels::copySelectionName() {
  if (!document_) return;
  const QString name = selectionName(document_->selection());
  if (!name.isEmpty()) QApplication::clipboard()->setText(name);
}

void ExplorerPanels::showModelText() {
  if (document_)
    showText(&document_->model().graph(), tr("%1 as ONNX text").arg(QFileInfo(document_->path()).fileName()));
}

void ExplorerPanels::showSelectedGraphText() {
  if (!document_ || document_->selection().empty()) return;
  const Graph* graph = document_->selection().graph;
  if (graph == &document_->model().graph()) {
    showModelText();
    return;
  }
  QString title = graph->owner() ? tr("Body of %1").arg(qs(graph->owner()->describe())) : tr("Function body");
  showText(graph, title + tr(" as ONNX text"));
}

OnnxTextDialog* ExplorerPanels::textDialog() const {
  return textDialog_;
}

void ExplorerPanels::showText(const Graph* graph, const QString& title) {
  auto* dialog = new OnnxTextDialog(document_->model(), graph, title, window_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  textDialog_ = dialog;
  dialog->show();
}

}  // namespace onyx::views
