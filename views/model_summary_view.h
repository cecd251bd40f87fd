#pragma once
// The model summary as a tree of sections (Model, Inputs, Outputs, Operators, Subgraphs, Parameters,
// Functions): the same facts `onyx info` prints, from the same ModelInfo. The main window refreshes it on
// every edit. Node counts say what they count: "nodes in the main graph" (Operators) and "nodes in N bodies"
// (Subgraphs), as the canvas says "nodes shown" and the pass history "nodes in all graphs".
#include <QTreeWidget>

#include "analysis/model_info.h"

namespace onyx::views {

class ModelSummaryView : public QTreeWidget {
  Q_OBJECT

 public:
  explicit ModelSummaryView(QWidget* parent = nullptr);

  void setInfo(const ModelInfo& info);
  void clearInfo();
  const ModelInfo& info() const { return info_; }
  // Columns of every row.
  static constexpr int kItemColumn = 0;
  static constexpr int kCountColumn = 1;
  static constexpr int kValueColumn = 2;
  // The section item whose first column reads `title` ("Operators"), or null.
  QTreeWidgetItem* section(const QString& title) const;

 protected:
  // The Item column gives way so the Value column stays visible in a narrow dock.
  void resizeEvent(QResizeEvent* event) override;

 public Q_SLOTS:
  // Copies the `onyx info` text of the shown model.
  void copyAsText() const;

 private:
  QTreeWidgetItem* addSection(const QString& title, const QString& summary, const QString& count);
  void fitColumns();
  ModelInfo info_;
  int itemContentWidth_ = 0;  // what the Item column needs to show every name whole
};

}  // namespace onyx::views
