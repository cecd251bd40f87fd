#pragma once
// Two states of a model (two pass steps, or two files) compared: the before and after graphs side by side,
// each coloured by the diff (removed red and changed amber on the left, added green and changed amber on the
// right, unchanged nodes grey so that op colours never read as changes), with synchronized navigation
// (selecting a node on one side selects and centres its match on the other) and the change list stepping
// from change to change. Overlay mode shows one canvas with the same colours; stepping to a removed node
// shows the before graph, any other change the after graph. Esc or Ctrl+W closes it.
#include <QString>
#include <QWidget>
#include <memory>

#include "diff/graph_diff.h"
#include "model_document.h"

class QCheckBox;
class QLabel;
class QSplitter;

namespace onyx::views {

class DiffListView;
class GraphCanvas;

class DiffWindow : public QWidget {
  Q_OBJECT

 public:
  // Works on copies of both models (node ids kept), so the caller's models may change or go away.
  DiffWindow(const Model& before, const Model& after, const QString& beforeTitle, const QString& afterTitle,
             diff::MatchBy matchBy, QWidget* parent = nullptr);
  ~DiffWindow() override;

  DiffListView* changes() const { return changes_; }
  GraphCanvas* beforeCanvas() const { return beforeCanvas_; }
  GraphCanvas* afterCanvas() const { return afterCanvas_; }
  ModelDocument& beforeDocument() const { return *beforeDocument_; }
  ModelDocument& afterDocument() const { return *afterDocument_; }
  const diff::ModelDiff& diff() const;

  bool isOverlayMode() const { return overlay_; }
  // In overlay mode, whether the one canvas shows the before graph (else the after graph).
  bool isShowingBefore() const { return showingBefore_; }

 public Q_SLOTS:
  void setOverlayMode(bool overlay);
  void showBefore(bool before);

 private:
  void syncSelection(ModelDocument& from, ModelDocument& to, bool fromBefore);
  void onChangeActivated(int index, NodeId beforeNode, NodeId afterNode);
  void updatePanes();

  std::shared_ptr<Model> beforeModel_, afterModel_;
  ModelDocument* beforeDocument_ = nullptr;
  ModelDocument* afterDocument_ = nullptr;
  GraphCanvas* beforeCanvas_ = nullptr;
  GraphCanvas* afterCanvas_ = nullptr;
  QWidget* beforePane_ = nullptr;
  QWidget* afterPane_ = nullptr;
  DiffListView* changes_ = nullptr;
  QCheckBox* overlayOption_ = nullptr;
  QCheckBox* beforeOption_ = nullptr;
  bool overlay_ = false;
  bool showingBefore_ = false;
  bool syncing_ = false;
};

// Focus on node `id` of the document's model, wherever it lives (main graph, body, function); false when
// the model has no such node.
bool focusNode(ModelDocument& document, NodeId id);

}  // namespace onyx::views
