#include "memory_view.h"

#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "profile_session.h"

namespace onyx::views {

namespace {
QString bytesText(int64_t bytes) {
  return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}
}  // namespace

MemoryChart::MemoryChart(ProfileSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(true);
  setMinimumHeight(160);
  connect(session_, &ProfileSession::runFinished, this, qOverload<>(&MemoryChart::update));
  connect(session_->document(), &ModelDocument::selectionChanged, this, qOverload<>(&MemoryChart::update));
}

QRectF MemoryChart::plotArea() const {
  return QRectF(60, 8, std::max(10, width() - 70), std::max(10, height() - 30));
}

QRectF MemoryChart::bufferRect(size_t index) const {
  const auto& memory = session_->memory();
  if (!memory || index >= memory->buffers.size()) return {};
  const exec::BufferRequest& b = memory->buffers[index];
  QRectF area = plotArea();
  double steps = std::max<double>(1, double(memory->stepLabels.size()));
  double bytes = std::max<double>(1, double(memory->arenaBytes));
  double x0 = area.left() + area.width() * b.firstStep / steps;
  double x1 = area.left() + area.width() * (b.lastStep + 1) / steps;
  double y0 = area.bottom() - area.height() * double(memory->offsets[index] + b.bytes) / bytes;
  double h = std::max(1.0, area.height() * double(b.bytes) / bytes);
  return QRectF(x0, y0, std::max(1.0, x1 - x0), h);
}

int MemoryChart::bufferAt(QPointF point) const {
  const auto& memory = session_->memory();
  if (!memory) return -1;
  // Smallest first: a small buffer drawn over a big one wins.
  int best = -1;
  for (size_t i = 0; i < memory->buffers.size(); ++i)
    if (bufferRect(i).contains(point) &&
        (best < 0 || memory->buffers[i].bytes < memory->buffers[size_t(best)].bytes))
      best = int(i);
  return best;
}

void MemoryChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const auto& memory = session_->memory();
  if (!memory || memory->buffers.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("Run the model (Profile > Run) to see its memory plan"));
    return;
  }
  QRectF area = plotArea();
  p.setPen(palette().mid().color());
  p.drawRect(area);
  NodeId selected = session_->selectedNode();
  for (size_t i = 0; i < memory->buffers.size(); ++i) {
    const exec::BufferRequest& b = memory->buffers[i];
    QRectF r = bufferRect(i);
    bool atPeak = b.firstStep <= memory->peakStep && memory->peakStep <= b.lastStep;
    QColor fill = atPeak ? QColor(0xe0, 0x80, 0x50) : QColor(0x80, 0xa8, 0xd8);
    p.fillRect(r, fill);
    p.setPen(fill.darker(140));
    p.drawRect(r);
    size_t step = size_t(b.firstStep);
    if (selected != kNoNode && step < memory->stepNodes.size() && memory->stepNodes[step] == selected) {
      p.setPen(QPen(palette().highlight().color(), 2));
      p.drawRect(r);
    }
  }
  if (memory->peakStep >= 0) {
    double steps = std::max<double>(1, double(memory->stepLabels.size()));
    double x = area.left() + area.width() * (memory->peakStep + 0.5) / steps;
    p.setPen(QPen(Qt::red, 1, Qt::DashLine));
    p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
  }
  p.setPen(palette().text().color());
  p.drawText(QRectF(0, area.top(), 56, 16), Qt::AlignRight, bytesText(memory->arenaBytes));
  p.drawText(QRectF(0, area.bottom() - 16, 56, 16), Qt::AlignRight, QStringLiteral("0"));
  p.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 18), Qt::AlignHCenter,
             tr("steps (%1), arena offset up").arg(memory->stepLabels.size()));
}

void MemoryChart::mousePressEvent(QMouseEvent* event) {
  int hit = bufferAt(event->position());
  const auto& memory = session_->memory();
  if (hit < 0 || !memory) return;
  size_t step = size_t(memory->buffers[size_t(hit)].firstStep);
  if (step < memory->stepNodes.size()) session_->selectNode(memory->stepNodes[step]);
}

bool MemoryChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    int hit = bufferAt(help->pos());
    const auto& memory = session_->memory();
    if (hit < 0 || !memory) {
      QToolTip::hideText();
      return true;
    }
    const exec::BufferRequest& b = memory->buffers[size_t(hit)];
    QToolTip::showText(help->globalPos(),
                       tr("%1<br>%2 at offset %3<br>steps %4 to %5%6")
                           .arg(QString::fromStdString(b.label).toHtmlEscaped(), bytesText(b.bytes),
                                QLocale().toString(qlonglong(memory->offsets[size_t(hit)])))
                           .arg(b.firstStep)
                           .arg(b.lastStep)
                           .arg(b.sharesWith >= 0 ? tr("<br>in place") : QString()),
                       this);
    return true;
  }
  return QWidget::event(event);
}

MemoryView::MemoryView(ProfileSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  chart_ = new MemoryChart(session, this);
  alive_ = new QTableWidget(this);
  alive_->setColumnCount(2);
  alive_->setHorizontalHeaderLabels({tr("Alive at the peak"), tr("Bytes")});
  alive_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  alive_->verticalHeader()->hide();
  alive_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_);
  split->addWidget(alive_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  connect(session_, &ProfileSession::runFinished, this, &MemoryView::rebuild);
  rebuild();
}

QString MemoryView::summaryText() const {
  const auto& memory = session_->memory();
  if (!memory) return tr("No memory plan: the plan comes from a run in this window (Profile > Run).");
  return tr("Arena %1, peak %2 at step %3 (%4); %5 buffers planned, %6 in place, %7 heap fallbacks")
      .arg(bytesText(memory->arenaBytes), bytesText(memory->peakBytes))
      .arg(memory->peakStep)
      .arg(QString::fromStdString(memory->peakNode))
      .arg(memory->buffers.size())
      .arg(memory->inPlaceCount)
      .arg(memory->heapFallbacks);
}

void MemoryView::rebuild() {
  summary_->setText(summaryText());
  const auto& memory = session_->memory();
  alive_->setRowCount(memory ? int(memory->aliveAtPeak.size()) : 0);
  if (memory)
    for (size_t r = 0; r < memory->aliveAtPeak.size(); ++r) {
      alive_->setItem(int(r), 0, new QTableWidgetItem(QString::fromStdString(memory->aliveAtPeak[r].first)));
      alive_->setItem(int(r), 1, new QTableWidgetItem(bytesText(memory->aliveAtPeak[r].second)));
    }
  chart_->update();
}

}  // namespace onyx::views
