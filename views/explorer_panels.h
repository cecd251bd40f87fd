#pragma once
// The explorer's side panels around the canvas, installed into a main window: the inspector and the
// unknown-dim debugger as docks, the search bar as a toolbar, and their actions (Find, Find Next/Previous,
// Copy Name, View as ONNX Text). Everything goes through the ModelDocument, as the canvas does.
#include <QObject>
#include <QPointer>

#include "model_document.h"

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QToolBar;

namespace onyx::views {

class InspectorView;
class OnnxTextDialog;
class SearchBar;
class UnknownDimsView;

class ExplorerPanels : public QObject {
  Q_OBJECT

 public:
  explicit ExplorerPanels(QMainWindow* window);

  // Null: no model open (the panels clear and disable).
  void setDocument(ModelDocument* document);
  ModelDocument* document() const { return document_; }

  // Find, Find Next, Find Previous and Copy Name into `edit`; the ONNX text views into `view` (the main
  // window lists every dock's toggle itself).
  void addActions(QMenu* edit, QMenu* view);

  InspectorView* inspector() const { return inspector_; }
  UnknownDimsView* unknownDims() const { return unknownDims_; }
  SearchBar* searchBar() const { return searchBar_; }
  QToolBar* searchToolBar() const { return searchToolBar_; }
  QDockWidget* inspectorDock() const { return inspectorDock_; }
  QDockWidget* unknownDimsDock() const { return unknownDimsDock_; }
  QAction* findAction() const { return find_; }
  QAction* findNextAction() const { return findNext_; }
  QAction* findPreviousAction() const { return findPrevious_; }
  QAction* copyNameAction() const { return copyName_; }
  QAction* viewModelTextAction() const { return viewModelText_; }
  QAction* viewGraphTextAction() const { return viewGraphText_; }
  // The text window opened last (for tests), or null.
  OnnxTextDialog* textDialog() const;

 public Q_SLOTS:
  void showSearch();
  void copySelectionName();
  void showModelText();
  // The graph holding the selection: a body alone, the whole model for the main graph.
  void showSelectedGraphText();

 private:
  void updateActions();
  void showText(const Graph* graph, const QString& title);

  QMainWindow* window_;
  QPointer<ModelDocument> document_;
  InspectorView* inspector_ = nullptr;
  UnknownDimsView* unknownDims_ = nullptr;
  SearchBar* searchBar_ = nullptr;
  QDockWidget* inspectorDock_ = nullptr;
  QDockWidget* unknownDimsDock_ = nullptr;
  QToolBar* searchToolBar_ = nullptr;
  QAction* find_ = nullptr;
  QAction* findNext_ = nullptr;
  QAction* findPrevious_ = nullptr;
  QAction* copyName_ = nullptr;
  QAction* viewModelText_ = nullptr;
  QAction* viewGraphText_ = nullptr;
  QPointer<OnnxTextDialog> textDialog_;
};

}  // namespace onyx::views
