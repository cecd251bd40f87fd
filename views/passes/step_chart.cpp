#include "passes/step_chart.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "passes/pass_session.h"

namespace onyx::views {
namespace {

constexpr int kMaxStepTicks = 10;

QValueAxis* valueAxisOf(QLineSeries* series) {
  for (QAbstractAxis* axis : series->attachedAxes())
    if (axis->orientation() == Qt::Vertical) return static_cast<QValueAxis*>(axis);
  return nullptr;
}

// A little room above and below the values, so a flat series does not lie on the frame.
void fitValueAxis(QLineSeries* series) {
  QValueAxis* axis = valueAxisOf(series);
  if (!axis || series->count() == 0) return;
  double low = series->at(0).y(), high = low;
  for (const QPointF& point : series->points()) {
    low = std::min(low, point.y());
    high = std::max(high, point.y());
  }
  const double pad = std::max((high - low) * 0.1, std::max(std::abs(high) * 0.05, 1e-3));
  axis->setRange(std::max(0.0, low - pad), high + pad);
  axis->applyNiceNumbers();
}

}  // namespace

StepChart::StepChart(QWidget* parent) : QChartView(parent) {
  auto* chart = new QChart;
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->setBackgroundRoundness(0);
  chart->legend()->setAlignment(Qt::AlignBottom);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart->legend()->setFont(small);
  setChart(chart);
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(170);

  steps_ = new QValueAxis;
  steps_->setLabelFormat(QStringLiteral("%d"));
  steps_->setTitleText(tr("step"));
  steps_->setLabelsFont(small);
  steps_->setTitleFont(small);
  chart->addAxis(steps_, Qt::AlignBottom);
  latency_ = addSeries(tr("latency (ms)"), QColor(0x2f, 0x7e, 0xd8), Qt::AlignLeft);
  peak_ = addSeries(tr("peak memory (KiB)"), QColor(0xd8, 0x6a, 0x2f), Qt::AlignRight);
  nodes_ = addSeries(tr("nodes"), QColor(0x3a, 0xa0, 0x5a), Qt::AlignRight);
}

QLineSeries* StepChart::addSeries(const QString& name, const QColor& color, Qt::Alignment side) {
  auto* series = new QLineSeries(this);
  series->setName(name);
  series->setColor(color);
  series->setPointsVisible(true);
  chart()->addSeries(series);
  auto* axis = new QValueAxis;
  axis->setLabelsColor(color);
  axis->setLinePenColor(color);
  axis->setGridLineVisible(side == Qt::AlignLeft);
  axis->setLabelFormat(QStringLiteral("%.4g"));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  axis->setLabelsFont(small);
  axis->setTruncateLabels(false);  // a narrow dock elided every label of the right-hand axes to "..."
  chart()->addAxis(axis, side);
  series->attachAxis(steps_);
  series->attachAxis(axis);
  connect(series, &QLineSeries::clicked, this,
          [this](const QPointF& point) { Q_EMIT stepClicked(static_cast<int>(std::lround(point.x())) - 1); });
  return series;
}

bool StepChart::hasPoints() const {
  return latency_->count() > 0;
}

void StepChart::showSteps(const PassSession& session) {
  QList<QPointF> latency, peak, nodes;
  auto add = [&](int x, const passes::StepCost& cost) {
    if (!cost.ran) return;
    latency << QPointF(x, cost.medianMs);
    peak << QPointF(x, double(cost.peakBytes) / 1024.0);
    nodes << QPointF(x, double(cost.nodes));
  };
  if (const auto& cost = session.baselineCost()) add(0, *cost);
  const auto& steps = session.steps();
  for (int i = 0; i < static_cast<int>(steps.size()); ++i)
    if (steps[i].record.cost && session.isApplied(i)) add(i + 1, *steps[i].record.cost);
  latency_->replace(latency);
  peak_->replace(peak);
  nodes_->replace(nodes);
  fitAxes();
}

void StepChart::fitAxes() {
  double last = 1;
  for (const QPointF& point : latency_->points()) last = std::max(last, point.x());
  steps_->setRange(0, last);
  steps_->setTickType(QValueAxis::TicksDynamic);
  steps_->setTickAnchor(0);
  steps_->setTickInterval(std::max(1.0, std::ceil(last / kMaxStepTicks)));
  for (QLineSeries* series : {latency_, peak_, nodes_}) fitValueAxis(series);
}

}  // namespace onyx::views
