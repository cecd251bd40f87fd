#pragma once
// The unknown-dim debugger: every unresolved dim of the open model grouped by the node (and reason) where
// it became unknown, as `onyx shapes` groups them, with the data-dependent ones marked. A click on a group
// focuses its origin node; a click on one of its values focuses that value. Symbols typed into the
// bindings field (`batch=1, seq=128`) re-run inference; the list and counts follow when it finishes.
// "Load input tensors..." takes a test_data_set folder: inference then reads the values of its input_K.pb
// (Reshape targets, axes, sizes passed as graph inputs), as `onyx shapes --inputs` does.
#include <QPointer>
#include <QWidget>

#include "model_document.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace onyx::views {

class UnknownDimsView : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kOriginColumn = 0;
  static constexpr int kCountColumn = 1;
  static constexpr int kKindColumn = 2;                 // "data-dependent" or empty
  static constexpr int kTargetRole = Qt::UserRole + 1;  // a Selection

  explicit UnknownDimsView(QWidget* parent = nullptr);

  void setDocument(ModelDocument* document);
  ModelDocument* document() const { return document_; }

  QTreeWidget* groupsTree() const { return groups_; }
  // The `onyx shapes` summary line of the shown inference ("values: V, static: S, ...").
  QString summaryText() const;
  QLineEdit* bindingsField() const { return bindings_; }
  // The last binding error, empty when the text parsed.
  QString bindingError() const;
  QPushButton* loadInputsButton() const { return loadInputs_; }
  // "input tensors: <folder> (K)" while input tensors are loaded, else empty.
  QString inputsText() const;

 public Q_SLOTS:
  // Parses the text and re-runs inference with it; false (with the error shown) when it does not parse.
  bool applyBindings(const QString& text);
  // Loads a test_data_set folder's input tensors and re-runs inference with their values; false (with the
  // error naming the file and the input shown) when a file does not load.
  bool loadInputTensors(const QString& folder);
  void clearInputTensors();
  // Focuses the origin of a group row, or the value of a value row.
  void followLink(QTreeWidgetItem* item);
  void rebuild();

 private:
  void showInferring();
  void showInputs();

  QPointer<ModelDocument> document_;
  QLabel* summary_ = nullptr;
  QLineEdit* bindings_ = nullptr;
  QPushButton* apply_ = nullptr;
  QPushButton* loadInputs_ = nullptr;
  QPushButton* clearInputs_ = nullptr;
  QLabel* inputs_ = nullptr;
  QLabel* error_ = nullptr;
  QString inputsFolder_;
  QTreeWidget* groups_ = nullptr;
};

}  // namespace onyx::views
