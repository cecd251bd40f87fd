#include "timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QFontMetricsF>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <map>

#include "profile_colors.h"
#include "profile_session.h"

namespace onyx::views {

QString timelineLane(const exec::ProfileEvent& e) {
  bool transfer = e.variant == "transfer";
  if (e.backend == "vulkan")
    return transfer ? QStringLiteral("Vulkan transfers") : QStringLiteral("Vulkan queue");
  if (transfer) return QStringLiteral("Transfers");
  return QStringLiteral("CPU thread %1").arg(e.thread);
}

TimelineView::TimelineView(ProfileSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(true);
  connect(session_, &ProfileSession::profileChanged, this, &TimelineView::rebuild);
  connect(session_->document(), &ModelDocument::selectionChanged, this, qOverload<>(&TimelineView::update));
  rebuild();
}

void TimelineView::rebuild() {
  const auto& events = session_->profile().events;
  // CPU threads in thread order, then transfers and device lanes.
  std::map<std::pair<int, int>, QString> order;
  for (const exec::ProfileEvent& e : events) {
    if (e.depth > 0) continue;
    QString lane = timelineLane(e);
    int group = lane.startsWith(QLatin1String("CPU"))   ? 0
                : lane == QLatin1String("Transfers")    ? 1
                : lane == QLatin1String("Vulkan queue") ? 2
                                                        : 3;
    order[{group, group == 0 ? e.thread : 0}] = lane;
  }
  lanes_.clear();
  for (const auto& [key, lane] : order) lanes_ << lane;
  laneOf_.assign(events.size(), -1);
  fullStart_ = INT64_MAX;
  fullEnd_ = INT64_MIN;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].depth > 0) continue;
    laneOf_[i] = int(lanes_.indexOf(timelineLane(events[i])));
    fullStart_ = std::min(fullStart_, events[i].startNs);
    fullEnd_ = std::max(fullEnd_, events[i].startNs + events[i].durationNs);
  }
  for (const exec::IterationMark& m : session_->profile().iterations) {
    fullStart_ = std::min(fullStart_, m.startNs);
    fullEnd_ = std::max(fullEnd_, m.startNs + m.durationNs);
  }
  if (fullStart_ >= fullEnd_) fullStart_ = 0, fullEnd_ = 1;
  resetRange();
  updateGeometry();
}

QSize TimelineView::sizeHint() const {
  return {700, kTopHeight + kLaneHeight * int(std::max<qsizetype>(1, lanes_.size())) + 4};
}

void TimelineView::setRange(int64_t startNs, int64_t endNs) {
  if (endNs - startNs < 100) endNs = startNs + 100;  // 0.1 us is as far as zooming goes
  start_ = startNs;
  end_ = endNs;
  update();
}

void TimelineView::resetRange() {
  int64_t margin = (fullEnd_ - fullStart_) / 50;
  setRange(fullStart_ - margin, fullEnd_ + margin);
}

void TimelineView::zoom(double factor, int64_t anchorNs) {
  double s = double(anchorNs) - double(anchorNs - start_) * factor;
  double e = double(anchorNs) + double(end_ - anchorNs) * factor;
  setRange(int64_t(s), int64_t(e));
}

double TimelineView::xOf(int64_t ns) const {
  double w = std::max(1, width() - kHeaderWidth);
  return kHeaderWidth + double(ns - start_) * w / double(end_ - start_);
}

int64_t TimelineView::nsAt(double x) const {
  double w = std::max(1, width() - kHeaderWidth);
  return start_ + int64_t((x - kHeaderWidth) * double(end_ - start_) / w);
}

QRectF TimelineView::eventRect(size_t index) const {
  const auto& events = session_->profile().events;
  if (index >= events.size() || laneOf_[index] < 0) return {};
  const exec::ProfileEvent& e = events[index];
  double x0 = std::max<double>(kHeaderWidth, xOf(e.startNs));
  double x1 = std::min<double>(width(), xOf(e.startNs + e.durationNs));
  if (x1 < kHeaderWidth || x0 > width()) return {};
  double y = kTopHeight + laneOf_[index] * kLaneHeight + 3;
  return QRectF(x0, y, std::max(1.0, x1 - x0), kLaneHeight - 6);
}

int TimelineView::eventAt(QPointF point) const {
  const auto& events = session_->profile().events;
  for (size_t i = 0; i < events.size(); ++i)
    if (eventRect(i).adjusted(-1, 0, 1, 0).contains(point)) return int(i);
  return -1;
}

namespace {

// "0.5 ms", "12 ms", "1.25 s": enough digits for the step between ticks.
QString formatTime(double ns, double stepNs) {
  if (stepNs >= 1e9 || ns >= 1e10) {
    int digits = stepNs >= 1e9 ? 0 : stepNs >= 1e8 ? 1 : 2;
    return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', digits);
  }
  if (stepNs >= 1e6 || ns >= 1e7) {
    int digits = stepNs >= 1e6 ? 0 : stepNs >= 1e5 ? 1 : stepNs >= 1e4 ? 2 : 3;
    return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', digits);
  }
  int digits = stepNs >= 1e3 ? 0 : stepNs >= 1e2 ? 1 : 2;
  return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', digits);
}

// The smallest 1-2-5 step (in ns) at least `minimum` long.
double niceStep(double minimum) {
  double decade = std::pow(10.0, std::floor(std::log10(std::max(1.0, minimum))));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (decade * factor >= minimum) return decade * factor;
  }
  return decade * 10;
}

}  // namespace

std::vector<TimelineView::Tick> TimelineView::rulerTicks() const {
  std::vector<Tick> ticks;
  double pixels = std::max(1, width() - kHeaderWidth);
  double nsPerPixel = double(end_ - start_) / pixels;
  double step = niceStep(nsPerPixel * kMinTickSpacing);
  // Times count from the first event, so the ruler reads "0 ms" where the run starts.
  double first = std::ceil(double(start_ - fullStart_) / step) * step;
  for (double t = first; double(fullStart_) + t <= double(end_); t += step) {
    double x = xOf(fullStart_ + int64_t(t));
    if (x < kHeaderWidth) continue;
    ticks.push_back({x, formatTime(std::abs(t) < step / 2 ? 0.0 : t, step)});
  }
  return ticks;
}

QString TimelineView::iterationLabel(int iteration) const {
  return tr("iteration %1").arg(iteration);
}

std::vector<QRectF> TimelineView::iterationLabelRects() const {
  std::vector<QRectF> rects;
  QFontMetricsF metrics(font());
  double lastRight = kHeaderWidth;
  for (const exec::IterationMark& m : session_->profile().iterations) {
    double x0 = std::max<double>(kHeaderWidth, xOf(m.startNs));
    double x1 = std::min<double>(width(), xOf(m.startNs + m.durationNs));
    double textWidth = metrics.horizontalAdvance(iterationLabel(m.iteration)) + 8;
    // The label sits at the band's left, within the band and clear of the previous one; else none.
    if (x1 - x0 < textWidth || x0 < lastRight) {
      rects.emplace_back();
      continue;
    }
    rects.emplace_back(x0 + 4, 0, textWidth - 8, kIterationBandHeight);
    lastRight = x0 + textWidth;
  }
  return rects;
}

void TimelineView::paintIterations(QPainter& p) const {
  const auto& marks = session_->profile().iterations;
  std::vector<QRectF> labels = iterationLabelRects();
  for (size_t i = 0; i < marks.size(); ++i) {
    double x0 = xOf(marks[i].startNs);
    double x1 = xOf(marks[i].startNs + marks[i].durationNs);
    QRectF band(x0, 1, std::max(1.0, x1 - x0), kIterationBandHeight - 2);
    QColor shade = palette().highlight().color();
    shade.setAlpha(i % 2 ? 40 : 70);
    p.fillRect(band, shade);
    p.setPen(QPen(palette().mid().color(), 1, Qt::DashLine));
    p.drawLine(QPointF(x0, kIterationBandHeight), QPointF(x0, height()));
    if (!labels[i].isEmpty()) {
      p.setPen(palette().text().color());
      p.drawText(labels[i], Qt::AlignVCenter | Qt::AlignLeft, iterationLabel(marks[i].iteration));
    }
  }
}

void TimelineView::paintRuler(QPainter& p) const {
  const QRectF ruler(kHeaderWidth, kIterationBandHeight, width() - kHeaderWidth, kRulerHeight);
  p.fillRect(ruler, palette().alternateBase());
  p.setPen(palette().mid().color());
  p.drawLine(ruler.bottomLeft(), ruler.bottomRight());
  p.setPen(palette().text().color());
  for (const Tick& tick : rulerTicks()) {
    p.drawLine(QPointF(tick.x, ruler.bottom() - 6), QPointF(tick.x, ruler.bottom()));
    p.drawText(QRectF(tick.x + 3, ruler.top(), kMinTickSpacing - 6, kRulerHeight - 4),
               Qt::AlignVCenter | Qt::AlignLeft, tick.label);
  }
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const auto& events = session_->profile().events;
  // Alternate lane shading with separators, so a bar reads against its own lane.
  for (int lane = 0; lane < lanes_.size(); ++lane) {
    QRectF row(0, kTopHeight + lane * kLaneHeight, width(), kLaneHeight);
    if (lane % 2) p.fillRect(row, palette().alternateBase());
    p.setPen(palette().midlight().color());
    p.drawLine(row.bottomLeft(), row.bottomRight());
  }
  p.setClipRect(QRect(kHeaderWidth, 0, width() - kHeaderWidth, height()));
  paintIterations(p);
  paintRuler(p);
  NodeId selected = session_->selectedNode();
  for (size_t i = 0; i < events.size(); ++i) {
    QRectF r = eventRect(i);
    if (r.isEmpty()) continue;
    p.fillRect(r, opTypeColor(events[i].opType));
    if (selected != kNoNode && events[i].node == selected) {
      p.setPen(QPen(palette().highlight().color(), 2));
      p.drawRect(r);
    }
    if (r.width() > 40) {
      p.setPen(Qt::black);
      p.drawText(r.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 p.fontMetrics().elidedText(QString::fromStdString(events[i].opType), Qt::ElideRight,
                                            int(r.width()) - 4));
    }
  }
  p.setClipping(false);
  p.fillRect(QRect(0, 0, kHeaderWidth, kTopHeight), palette().window());
  for (int lane = 0; lane < lanes_.size(); ++lane) {
    QRectF header(0, kTopHeight + lane * kLaneHeight, kHeaderWidth, kLaneHeight);
    p.fillRect(header, palette().window());
    p.setPen(palette().windowText().color());
    p.drawText(header.adjusted(6, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, lanes_[lane]);
  }
  p.setPen(palette().windowText().color());
  p.drawText(QRectF(6, 0, kHeaderWidth - 8, kIterationBandHeight), Qt::AlignVCenter | Qt::AlignLeft,
             tr("iterations"));
  const double span = double(end_ - start_);
  p.drawText(QRectF(6, kIterationBandHeight, kHeaderWidth - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
             tr("%1 shown").arg(formatTime(span, span / 100)));
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  dragging_ = event->button() == Qt::LeftButton;
  dragged_ = false;
  dragX_ = event->position().x();
  dragStart_ = start_;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) return;
  double dx = event->position().x() - dragX_;
  if (std::abs(dx) > 3) dragged_ = true;
  if (!dragged_) return;
  int64_t span = end_ - start_;
  int64_t shift = int64_t(dx * double(span) / std::max(1, width() - kHeaderWidth));
  setRange(dragStart_ - shift, dragStart_ - shift + span);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (dragging_ && !dragged_) {
    int hit = eventAt(event->position());
    if (hit >= 0) session_->selectNode(session_->profile().events[size_t(hit)].node);
  }
  dragging_ = false;
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoom(std::pow(0.8, steps), nsAt(event->position().x()));
  event->accept();
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    int hit = eventAt(help->pos());
    if (hit < 0) {
      QToolTip::hideText();
      return true;
    }
    const exec::ProfileEvent& e = session_->profile().events[size_t(hit)];
    QToolTip::showText(help->globalPos(),
                       QStringLiteral("<b>%1 %2</b><br>%3 us, iteration %4<br>%5 %6")
                           .arg(QString::fromStdString(e.opType).toHtmlEscaped(),
                                QString::fromStdString(e.name).toHtmlEscaped())
                           .arg(double(e.durationNs) / 1e3, 0, 'f', 1)
                           .arg(e.iteration)
                           .arg(QString::fromStdString(e.backend), QString::fromStdString(e.variant)),
                       this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace onyx::views
