#pragma once
// The model summary as a tree of sections (Model, Inputs, Outputs, Operators, Subgraphs, Parameters,
// Functions): the same facts `onyx info` prints, from the same ModelInfo.
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

 public Q_SLOTS:
  // Copies the `onyx info` text of the shown model.
  void copyAsText() const;

 private:
  QTreeWidgetItem* addSection(const QString& title, const QString& summary, const QString& count);
  ModelInfo info_;
};

}  // namespace onyx::views
