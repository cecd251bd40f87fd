#include "timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
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
  return {700, kRulerHeight + kLaneHeight * int(std::max<qsizetype>(1, lanes_.size())) + 4};
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
  double y = kRulerHeight + laneOf_[index] * kLaneHeight + 3;
  return QRectF(x0, y, std::max(1.0, x1 - x0), kLaneHeight - 6);
}

int TimelineView::eventAt(QPointF point) const {
  const auto& events = session_->profile().events;
  for (size_t i = 0; i < events.size(); ++i)
    if (eventRect(i).adjusted(-1, 0, 1, 0).contains(point)) return int(i);
  return -1;
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const auto& events = session_->profile().events;
  // Iteration marks.
  p.setClipRect(QRect(kHeaderWidth, 0, width() - kHeaderWidth, height()));
  for (const exec::IterationMark& m : session_->profile().iterations) {
    double x = xOf(m.startNs);
    p.setPen(QPen(palette().mid().color(), 1, Qt::DashLine));
    p.drawLine(QPointF(x, 0), QPointF(x, height()));
    p.setPen(palette().text().color());
    p.drawText(QPointF(x + 3, kRulerHeight - 6), tr("iteration %1").arg(m.iteration));
  }
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
  p.fillRect(QRect(0, 0, kHeaderWidth, height()), palette().window());
  p.setPen(palette().windowText().color());
  for (int lane = 0; lane < lanes_.size(); ++lane)
    p.drawText(QRectF(6, kRulerHeight + lane * kLaneHeight, kHeaderWidth - 8, kLaneHeight),
               Qt::AlignVCenter | Qt::AlignLeft, lanes_[lane]);
  p.drawText(QRectF(6, 0, kHeaderWidth - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
             tr("%1 ms shown").arg(double(end_ - start_) / 1e6, 0, 'g', 3));
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
