#pragma once
// The op summary: time by op type or by node (count, total, mean, share, FLOPs, GFLOP/s) in a sortable
// table, the top rows as a bar chart, CSV export; a third view lists fused kernels' time attributed back to
// the nodes they replaced. Table and chart sit side by side, so the table shows many rows at once.
// Selecting a row selects its node (an op type's costliest node) everywhere.
#include <QWidget>
#include <vector>

#include "exec/profiler.h"
#include "profile/profile_summary.h"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace onyx::views {

class HorizontalBarChart;
class ProfileSession;

class OpSummaryView : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { OpType, Node, Attributed };
  explicit OpSummaryView(ProfileSession* session, QWidget* parent = nullptr);

  void setMode(Mode mode);
  Mode mode() const { return mode_; }
  QTableView* table() const { return table_; }
  QSortFilterProxyModel* sorted() const { return sorted_; }
  // The summary rows of the mode (op type or node), as the engine computed them.
  const std::vector<profile::SummaryRow>& rows() const;
  // summaryCsv of rows(): what Export CSV writes.
  std::string csv() const;
  // Bars in the chart: the top rows' keys and totals, largest first.
  QStringList chartCategories() const;
  HorizontalBarChart* chart() const { return chart_; }
  static constexpr int kChartRows = 10;

  enum Column { Key, OpType, Count, TotalMs, MeanMs, Share, Flops, GflopsPerSecond, ColumnCount };

 Q_SIGNALS:
  void exportRequested();

 private:
  void rebuild();
  void rebuildChart();
  void followSelection();
  NodeId nodeOfRow(int sourceRow) const;

  ProfileSession* session_;
  Mode mode_ = Mode::OpType;
  QComboBox* modeBox_;
  QTableView* table_;
  QStandardItemModel* model_;
  QSortFilterProxyModel* sorted_;
  HorizontalBarChart* chart_;
  QStringList chartCategories_;
  bool following_ = false;
};

}  // namespace onyx::views
