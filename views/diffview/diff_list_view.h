#pragma once
// The list of a diff's changes, one row per change coloured by its tone (added green, removed red, changed
// amber), under the summary line, with Previous/Next stepping from change to change. Stepping emits the
// nodes concerned so side-by-side canvases can centre on them.
#include <QWidget>
#include <memory>

#include "diff/graph_diff.h"

class QLabel;
class QListWidget;
class QToolButton;

namespace onyx::views {

class DiffListView : public QWidget {
  Q_OBJECT

 public:
  explicit DiffListView(QWidget* parent = nullptr);

  // Compares `before` with `after` and lists the changes. The view keeps both models alive, since its
  // change rows refer to their nodes by id.
  void compare(std::shared_ptr<const Model> before, std::shared_ptr<const Model> after, diff::MatchBy by);
  void clear();

  const diff::ModelDiff& diff() const { return diff_; }
  const std::shared_ptr<const Model>& before() const { return before_; }
  const std::shared_ptr<const Model>& after() const { return after_; }
  int changeCount() const;
  int currentChange() const;  // -1: none
  QString summaryText() const;
  QListWidget* list() const { return list_; }

 public Q_SLOTS:
  void nextChange();
  void previousChange();
  void selectChange(int index);

 Q_SIGNALS:
  // The user stepped to change `index`; either node may be kNoNode (an added node has no old one).
  void changeActivated(int index, onyx::NodeId beforeNode, onyx::NodeId afterNode);

 private:
  void updateButtons();

  QLabel* summary_;
  QListWidget* list_;
  QToolButton* previous_;
  QToolButton* next_;
  std::shared_ptr<const Model> before_, after_;
  diff::ModelDiff diff_;
};

}  // namespace onyx::views
