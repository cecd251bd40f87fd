#include "profile_panel.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "flame_view.h"
#include "memory_view.h"
#include "op_summary_view.h"
#include "profile_session.h"
#include "run_dialog.h"
#include "run_results_panel.h"
#include "timeline_view.h"

namespace onyx::views {

ProfilePanel::ProfilePanel(ModelDocument* document, QWidget* parent)
    : QWidget(parent), session_(new ProfileSession(document, this)) {
  runAction_ = new QAction(tr("&Run…"), this);
  importAction_ = new QAction(tr("&Import profile…"), this);
  importAction_->setToolTip(
      tr("Our Chrome trace (onyx run --profile) or an ONNX Runtime profile, mapped by name"));
  importOptimizedAction_ = new QAction(tr("Import profile of an &optimized model…"), this);
  importOptimizedAction_->setToolTip(
      tr("A trace of a model optimized from this one, painted on this graph through the nodes' origins"));
  auto addExport = [this](const QString& text, auto handler) {
    auto* action = new QAction(text, this);
    connect(action, &QAction::triggered, this, handler);
    exportActions_ << action;
  };
  addExport(tr("Export Chrome trace…"), [this] {
    exportWith(tr("Export Chrome trace"), tr("Chrome trace (*.json)"), QStringLiteral(".trace.json"),
               &ProfileSession::exportChromeTrace);
  });
  addExport(tr("Export speedscope JSON…"), [this] {
    exportWith(tr("Export speedscope"), tr("speedscope (*.json)"), QStringLiteral(".speedscope.json"),
               &ProfileSession::exportSpeedscope);
  });
  addExport(tr("Export summary CSV…"), [this] { Q_EMIT opSummary_->exportRequested(); });

  auto* toolbar = new QToolBar(this);
  toolbar->addAction(runAction_);
  toolbar->addAction(importAction_);
  toolbar->addAction(importOptimizedAction_);
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(exportButton);
  exportMenu->addActions(exportActions_);
  exportButton->setMenu(exportMenu);
  toolbar->addWidget(exportButton);
  toolbar->addSeparator();
  toolbar->addWidget(new QLabel(tr(" Colour nodes by "), this));
  metricBox_ = new QComboBox(this);
  for (profile::OverlayMetric m : profile::allMetrics())
    metricBox_->addItem(QString::fromUtf8(profile::metricName(m).data()));
  toolbar->addWidget(metricBox_);

  status_ = new QLabel(this);
  tabs_ = new QTabWidget(this);
  flame_ = new FlameView(session_, this);
  timeline_ = new TimelineView(session_, this);
  opSummary_ = new OpSummaryView(session_, this);
  memory_ = new MemoryView(session_, this);
  results_ = new RunResultsPanel(session_, this);
  tabs_->addTab(flame_, tr("Flame"));
  tabs_->addTab(timeline_, tr("Timeline"));
  tabs_->addTab(opSummary_, tr("Op summary"));
  tabs_->addTab(memory_, tr("Memory"));
  tabs_->addTab(results_, tr("Run results"));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(toolbar);
  layout->addWidget(status_);
  layout->addWidget(tabs_, 1);

  connect(runAction_, &QAction::triggered, this, &ProfilePanel::showRunDialog);
  connect(importAction_, &QAction::triggered, this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Import profile"), {}, tr("Profiles (*.json)"));
    if (!path.isEmpty()) importProfile(path);
  });
  connect(importOptimizedAction_, &QAction::triggered, this, [this] {
    QString trace = QFileDialog::getOpenFileName(this, tr("Profile of the optimized model"), {},
                                                 tr("Profiles (*.json)"));
    if (trace.isEmpty()) return;
    QString model = QFileDialog::getOpenFileName(this, tr("The optimized model it profiled"), {},
                                                 tr("ONNX models (*.onnx)"));
    if (!model.isEmpty()) importOptimizedProfile(trace, model);
  });
  connect(metricBox_, &QComboBox::currentIndexChanged, this,
          [this](int index) { setOverlayMetric(profile::allMetrics()[size_t(index)]); });
  connect(opSummary_, &OpSummaryView::exportRequested, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export summary CSV"), {}, tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    auto key = opSummary_->mode() == OpSummaryView::Mode::OpType ? profile::SummaryKey::OpType
                                                                 : profile::SummaryKey::Node;
    auto written = session_->exportCsv(path, key);
    error_ = written ? QString() : QString::fromStdString(written.error().toString());
    refreshStatus();
  });
  connect(session_, &ProfileSession::profileChanged, this, [this] {
    rebuildOverlay();
    refreshStatus();
  });
  connect(session_, &ProfileSession::runFinished, this, [this] { tabs_->setCurrentWidget(results_); });
  refreshStatus();
}

QString ProfilePanel::statusText() const {
  return status_->text();
}

void ProfilePanel::refreshStatus() {
  for (QAction* a : exportActions_) a->setEnabled(session_->hasProfile());
  if (!error_.isEmpty()) {
    status_->setText(tr("error: %1").arg(error_));
    return;
  }
  if (!session_->hasProfile()) {
    status_->setText(tr("No profile: run the model or import a trace."));
    return;
  }
  const profile::MappingStats& m = session_->mapping();
  const profile::FlameTree& flame = session_->flameTree();
  QString inserted = m.runtimeInserted ? tr(" (%1 %2 of the runtime's own nodes)")
                                             .arg(m.runtimeInserted)
                                             .arg(m.runtimeInserted == 1 ? tr("event") : tr("events"))
                                       : QString();
  status_->setText(
      tr("%1: %2 events, %3 iteration(s), %4 ms per iteration; %5 % of events mapped onto the model%6")
          .arg(session_->source())
          .arg(session_->profile().events.size())
          .arg(flame.iterations)
          .arg(double(flame.root->totalNs) / 1e6 / std::max(1, flame.iterations), 0, 'f', 3)
          .arg(100.0 * m.mappedShareOfModelNodes(), 0, 'f', 1)
          .arg(inserted));
  if (const auto& origins = session_->origins()) {
    status_->setText(tr("%1: painted on this model through provenance: %2 nodes kept, %3 merged (time split by "
                        "FLOPs), %4 removed (no time); %5 ms per iteration")
                         .arg(session_->source())
                         .arg(origins->count(profile::OriginFate::Kept))
                         .arg(origins->count(profile::OriginFate::Merged))
                         .arg(origins->count(profile::OriginFate::Removed))
                         .arg(double(origins->totalNs) / 1e6 / std::max(1, origins->iterations), 0, 'f', 3));
  }
}

RunDialog* ProfilePanel::showRunDialog() {
  if (!runDialog_) runDialog_ = new RunDialog(session_, this);
  runDialog_->show();
  runDialog_->raise();
  return runDialog_;
}

bool ProfilePanel::importOptimizedProfile(const QString& tracePath, const QString& optimizedModel) {
  auto imported = session_->importOptimizedTrace(tracePath, optimizedModel);
  error_ = imported ? QString() : QString::fromStdString(imported.error().toString());
  refreshStatus();
  return imported.ok();
}

bool ProfilePanel::importProfile(const QString& path) {
  auto imported = session_->importTrace(path);
  error_ = imported ? QString() : QString::fromStdString(imported.error().toString());
  refreshStatus();
  return imported.ok();
}

void ProfilePanel::setOverlayMetric(profile::OverlayMetric metric) {
  metric_ = metric;
  auto metrics = profile::allMetrics();
  int index = int(std::find(metrics.begin(), metrics.end(), metric) - metrics.begin());
  if (metricBox_->currentIndex() != index) metricBox_->setCurrentIndex(index);
  rebuildOverlay();
}

void ProfilePanel::rebuildOverlay() {
  overlay_ = buildOverlay(session_->metrics(), metric_);
  if (metric_ == profile::OverlayMetric::SelfTime || metric_ == profile::OverlayMetric::Share)
    addAttributedTime(overlay_, session_->attributed(), session_->document()->model(),
                      session_->metrics().iterations);
  Q_EMIT overlayChanged(overlay_);
}

void ProfilePanel::exportWith(const QString& title, const QString& filter, const QString& suffix,
                              Expected<void> (ProfileSession::*write)(const QString&) const) {
  QString base = QFileInfo(session_->document()->path()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, title, base + suffix, filter);
  if (path.isEmpty()) return;
  auto written = (session_->*write)(path);
  error_ = written ? QString() : QString::fromStdString(written.error().toString());
  refreshStatus();
}

}  // namespace onyx::views
