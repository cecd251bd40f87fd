#pragma once
// The passes dock's chart of what the steps buy (Measure): latency (median ms), peak memory (KiB) and node
// count over the steps in effect, the original model at step 0, each series on its own axis; the values are
// the history's Measure columns. Clicking a point asks for that step to be selected.
#include <QChartView>

class QLineSeries;
class QValueAxis;

namespace onyx::views {

class PassSession;

class StepChart : public QChartView {
  Q_OBJECT

 public:
  explicit StepChart(QWidget* parent = nullptr);

  // Rebuilds the series from the measured steps in effect (undone and unmeasured ones are left out).
  void showSteps(const PassSession& session);
  // Whether any point is shown.
  bool hasPoints() const;

  // x is the history's step number (0 the original model).
  QLineSeries* latencySeries() const { return latency_; }
  QLineSeries* peakSeries() const { return peak_; }
  QLineSeries* nodeSeries() const { return nodes_; }

 Q_SIGNALS:
  // A point was clicked: the step's index in the session (-1: the original model).
  void stepClicked(int step);

 private:
  QLineSeries* addSeries(const QString& name, const QColor& color, Qt::Alignment side);
  void fitAxes();

  QLineSeries* latency_ = nullptr;
  QLineSeries* peak_ = nullptr;
  QLineSeries* nodes_ = nullptr;
  QValueAxis* steps_ = nullptr;
};

}  // namespace onyx::views
