#pragma once
// The memory planner's view of a run: every planned buffer as a bar over the steps it is alive (x) at its
// offset in the arena (y), the peak step marked, and the tensors alive at the peak listed. Clicking a bar
// selects the node that writes it.
#include <QWidget>

#include "exec/executor.h"

class QLabel;
class QTableWidget;

namespace onyx::views {

class ProfileSession;

class MemoryChart : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryChart(ProfileSession* session, QWidget* parent = nullptr);
  // Where buffer `index` of the report is drawn.
  QRectF bufferRect(size_t index) const;
  int bufferAt(QPointF point) const;
  QSize sizeHint() const override { return {600, 260}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRectF plotArea() const;
  ProfileSession* session_;
};

class MemoryView : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryView(ProfileSession* session, QWidget* parent = nullptr);
  MemoryChart* chart() const { return chart_; }
  QTableWidget* aliveAtPeak() const { return alive_; }
  QString summaryText() const;

 private:
  void rebuild();
  ProfileSession* session_;
  QLabel* summary_;
  MemoryChart* chart_;
  QTableWidget* alive_;
};

}  // namespace onyx::views
