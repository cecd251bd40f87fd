#include "run_results_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "exec/run_threads.h"
#include "profile_session.h"

namespace onyx::views {

RunResultsPanel::RunResultsPanel(ProfileSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
  latency_ = new QLabel(this);
  latency_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  threads_ = new QLabel(this);
  threads_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  threads_->setWordWrap(true);
  device_ = new QLabel(this);
  device_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  device_->setWordWrap(true);
  outputs_ = new QTableWidget(this);
  outputs_->setColumnCount(ColumnCount);
  outputs_->setHorizontalHeaderLabels(
      {tr("Output"), tr("Type"), tr("Min"), tr("Max"), tr("Mean"), tr("First values")});
  outputs_->horizontalHeader()->setStretchLastSection(true);
  outputs_->verticalHeader()->hide();
  outputs_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(latency_);
  layout->addWidget(threads_);
  layout->addWidget(device_);
  layout->addWidget(outputs_, 1);
  connect(session_, &ProfileSession::runFinished, this, &RunResultsPanel::rebuild);
  rebuild();
}

QString RunResultsPanel::latencyText() const {
  return latency_->text();
}

QString RunResultsPanel::threadsText() const {
  return threads_->text();
}

QString RunResultsPanel::deviceText() const {
  return device_->text();
}

void RunResultsPanel::rebuild() {
  const auto& run = session_->lastRun();
  if (!run) {
    latency_->setText(tr("No run yet: Profile > Run… runs the model here."));
    threads_->clear();
    threads_->hide();
    device_->clear();
    device_->hide();
    outputs_->setRowCount(0);
    return;
  }
  const profile::LatencyStats& l = run->latency;
  latency_->setText(tr("%1 timed iterations on %2%3: median %4 ms, min %5 ms, max %6 ms, mean %7 ms")
                        .arg(l.ms.size())
                        .arg(QString::fromStdString(run->backendUsed))
                        .arg(run->cancelled ? tr(" (cancelled)") : QString())
                        .arg(l.median(), 0, 'f', 3)
                        .arg(l.min(), 0, 'f', 3)
                        .arg(l.max(), 0, 'f', 3)
                        .arg(l.mean(), 0, 'f', 3));
  const exec::RunReport& d = run->device;
  // A run that did not get as far as a timed iteration has no threads to tell.
  threads_->setText(d.threads > 0 ? tr("Threads: %1")
                                        .arg(QString::fromStdString(
                                            exec::describeRunThreads(run->threadsAsked, run->adaptThreads, d)))
                                  : QString());
  threads_->setVisible(d.threads > 0);
  const bool onDevice = d.device.submits > 0 || !d.hostNodes.empty();
  QString device = tr("Last run on the device: %1 queue submits, %2 host waits, %3 bytes up, %4 bytes down")
                       .arg(d.device.submits)
                       .arg(d.device.waits)
                       .arg(d.device.bytesUp)
                       .arg(d.device.bytesDown);
  if (!d.planWalked) device += tr(" (replayed without walking the plan)");
  for (const exec::HostNodeRun& n : d.hostNodes)
    device += QStringLiteral("\n") + tr("On the CPU: %1 (%2)").arg(QString::fromStdString(n.node), QString::fromStdString(n.why));
  if (!run->backendNote.empty()) device = (onDevice ? device + QStringLiteral("\n") : QString()) + QString::fromStdString(run->backendNote);
  device_->setText(onDevice || !run->backendNote.empty() ? device : QString());
  device_->setVisible(onDevice || !run->backendNote.empty());
  outputs_->setRowCount(int(run->outputs.size()));
  for (size_t r = 0; r < run->outputs.size(); ++r) {
    const profile::OutputSummary& o = run->outputs[r];
    auto set = [&](int column, const QString& text) {
      outputs_->setItem(int(r), column, new QTableWidgetItem(text));
    };
    set(Name, QString::fromStdString(o.name));
    set(Type, QString::fromStdString(o.type));
    if (o.numeric) {
      set(Min, QString::number(o.min, 'g', 6));
      set(Max, QString::number(o.max, 'g', 6));
      set(Mean, QString::number(o.mean, 'g', 6));
      QStringList first;
      for (double v : o.first) first << QString::number(v, 'g', 5);
      set(First, first.join(QStringLiteral(", ")) +
                     (o.elements > int64_t(o.first.size()) ? QStringLiteral(", …") : QString()));
    }
  }
  outputs_->resizeColumnsToContents();
}

}  // namespace onyx::views
