#pragma once
// The inspector: everything about the selected node or value of a ModelDocument.
//   node:  domain, op type, name, attributes (tensors previewed), inputs and outputs with their inferred
//          types (initializer inputs previewed), and the op's documentation (op_documentation_rows.h);
//   value: its type, producer, consumers, and each dim with where it came from ("why?" for unknown ones).
// Rows that name another node or value are links: a click focuses that node or value in every view.
// It follows edits without a new selection: a burst of change events that touches what it shows (the
// node's attributes, name, inputs or outputs and their types; the value's name, type, producer or
// consumers) rebuilds it in place, keeping the scroll position; other edits leave it alone. A node or value
// an edit removed shows as removed until an undo brings it back.
#include <QPointer>
#include <QTreeWidget>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "model_document.h"

namespace onyx::views {

class InspectorView : public QTreeWidget {
  Q_OBJECT

 public:
  static constexpr int kNameColumn = 0;
  static constexpr int kValueColumn = 1;
  static constexpr int kLinkColumn = 2;  // "why?" on unknown dims
  // A Selection: where a click on the row goes.
  static constexpr int kTargetRole = Qt::UserRole + 1;

  explicit InspectorView(QWidget* parent = nullptr);

  void setDocument(ModelDocument* document);
  ModelDocument* document() const { return document_; }

  // The section item titled `title` ("Attributes", "Inputs", "Dims"...), or null.
  QTreeWidgetItem* section(const QString& title) const;
  // The row of `section` whose first column reads `name`, or null.
  QTreeWidgetItem* row(const QString& section, const QString& name) const;
  // Where a click on the item goes, if anywhere.
  static std::optional<Selection> targetOf(const QTreeWidgetItem* item);
  // How many times the tree was built (selection, inference or an edit of what it shows).
  int rebuildCount() const { return rebuilds_; }

 public Q_SLOTS:
  // Focuses the item's target (what a click does, without waiting for the event loop).
  void followLink(QTreeWidgetItem* item);
  void rebuild();

 private:
  void showNode(const Node& node);
  void showValue(const Value& value);
  void addValueRows(QTreeWidgetItem* section, const std::vector<Value*>& values, const QString& prefix);
  void addDimRows(QTreeWidgetItem* section, const Value& value);
  void showContextMenu(const QPoint& position);
  void showRemoved();
  // Rebuilds when one of the burst's events touches what is shown.
  void onChangesSettled(const std::vector<ChangeEvent>& events);
  bool concerns(const ChangeEvent& event) const;

  QPointer<ModelDocument> document_;
  int rebuilds_ = 0;
  // What the tree was last built for, read when an edit arrives: the selection, the names of the values
  // it shows (a rename's event carries the old name) and the nodes it links to (their names are shown).
  Selection built_;
  QString builtDescription_;
  std::unordered_set<std::string> shownValueNames_;
  std::unordered_set<NodeId> linkedNodes_;
};

}  // namespace onyx::views
