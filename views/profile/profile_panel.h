#pragma once
// The profiling panel: Run…, Import… and Export actions, the overlay metric, and the views (flame, timeline,
// op summary, memory, run results) over one ProfileSession. The overlay it computes is handed to the graph
// canvas through overlayChanged().
#include <QWidget>

#include "profile/node_metrics.h"
#include "profile_overlay.h"

class QAction;
class QComboBox;
class QLabel;
class QTabWidget;

namespace onyx::views {

class FlameView;
class MemoryView;
class ModelDocument;
class OpSummaryView;
class ProfileSession;
class RunDialog;
class RunResultsPanel;
class TimelineView;

class ProfilePanel : public QWidget {
  Q_OBJECT

 public:
  explicit ProfilePanel(ModelDocument* document, QWidget* parent = nullptr);

  ProfileSession* session() const { return session_; }
  FlameView* flameView() const { return flame_; }
  TimelineView* timelineView() const { return timeline_; }
  OpSummaryView* opSummaryView() const { return opSummary_; }
  MemoryView* memoryView() const { return memory_; }
  RunResultsPanel* resultsPanel() const { return results_; }
  QTabWidget* tabs() const { return tabs_; }
  QString statusText() const;
  const ProfileOverlay& overlay() const { return overlay_; }
  profile::OverlayMetric overlayMetric() const { return metric_; }

  QAction* runAction() const { return runAction_; }
  QAction* importAction() const { return importAction_; }
  QList<QAction*> exportActions() const { return exportActions_; }

 public Q_SLOTS:
  // Opens (or raises) the Run dialog.
  RunDialog* showRunDialog();
  // Imports a trace and maps it onto the model; false (with the error in the status line) on failure.
  bool importProfile(const QString& path);
  // A trace of a model optimized from this one, painted on this graph (ProfileSession::importOptimizedTrace).
  bool importOptimizedProfile(const QString& tracePath, const QString& optimizedModel);
  void setOverlayMetric(profile::OverlayMetric metric);

 Q_SIGNALS:
  void overlayChanged(const onyx::views::ProfileOverlay& overlay);

 private:
  void refreshStatus();
  void rebuildOverlay();
  void exportWith(const QString& title, const QString& filter, const QString& suffix,
                  Expected<void> (ProfileSession::*write)(const QString&) const);

  ProfileSession* session_;
  QTabWidget* tabs_;
  FlameView* flame_;
  TimelineView* timeline_;
  OpSummaryView* opSummary_;
  MemoryView* memory_;
  RunResultsPanel* results_;
  QLabel* status_;
  QComboBox* metricBox_;
  QAction* runAction_;
  QAction* importAction_;
  QAction* importOptimizedAction_;
  QList<QAction*> exportActions_;
  RunDialog* runDialog_ = nullptr;
  ProfileOverlay overlay_;
  profile::OverlayMetric metric_ = profile::OverlayMetric::SelfTime;
  QString error_;
};

}  // namespace onyx::views
