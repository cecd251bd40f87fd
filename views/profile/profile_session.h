#pragma once
// The profile the profiling views show, for one open model: the events (from a run or an imported trace,
// mapped onto the model), and what every view derives from them (flame tree, summaries, per-node metrics,
// fused-kernel attribution, the memory plan). Views select through the ModelDocument, so a click in the flame
// view selects in the op summary, the timeline and the graph.
#include <QObject>
#include <QString>
#include <optional>

#include "exec/executor.h"
#include "model_document.h"
#include "profile/fused_attribution.h"
#include "profile/node_metrics.h"
#include "profile/origin_profile.h"
#include "profile/profile.h"
#include "profile/profile_run.h"
#include "profile/profile_summary.h"

namespace onyx::views {

class ProfileSession : public QObject {
  Q_OBJECT

 public:
  explicit ProfileSession(ModelDocument* document, QObject* parent = nullptr);

  ModelDocument* document() const { return document_; }
  bool hasProfile() const { return !profile_.events.empty(); }
  const profile::Profile& profile() const { return profile_; }
  const QString& source() const { return source_; }  // file name or "run"
  const profile::FlameTree& flameTree() const { return flame_; }
  const std::vector<profile::SummaryRow>& byOpType() const { return byOpType_; }
  const std::vector<profile::SummaryRow>& byNode() const { return byNode_; }
  const profile::ProfileMetrics& metrics() const { return metrics_; }
  const std::vector<profile::AttributedTime>& attributed() const { return attributed_; }
  const profile::MappingStats& mapping() const { return mapping_; }
  const std::optional<exec::MemoryReport>& memory() const { return memory_; }
  const std::optional<profile::RunResult>& lastRun() const { return lastRun_; }

  // The node the document has selected, when it is one of the main graph's.
  NodeId selectedNode() const;
  const Node* node(NodeId id) const;

  // Reads our Chrome trace or an ONNX Runtime profile and maps it onto the model by name.
  Expected<void> importTrace(const QString& path);
  // A trace of an optimized descendant of this model (`optimizedModel`, saved by `onyx optimize` or Save As
  // after pass steps), painted on this model's nodes through provenance (profile/origin_profile.h): each
  // node gets its share of the optimized nodes' time, split by FLOPs; removed nodes get none. Fails when some
  // node of the optimized model stands for no node of this one.
  Expected<void> importOptimizedTrace(const QString& tracePath, const QString& optimizedModel);
  // Set while the profile shown was painted from an optimized model's.
  const std::optional<profile::OriginProfile>& origins() const { return origins_; }
  Expected<void> exportChromeTrace(const QString& path) const;
  Expected<void> exportSpeedscope(const QString& path) const;
  Expected<void> exportCsv(const QString& path, profile::SummaryKey key) const;

 public Q_SLOTS:
  // A profile taken on this model (node ids already resolved) or read from a file (mapped here).
  void setProfile(profile::Profile profile, const QString& source);
  // A finished run: its profile, its memory plan and the results panel's figures.
  void setRunResult(const profile::RunResult& result);
  void selectNode(NodeId id);

 Q_SIGNALS:
  void profileChanged();
  void runFinished();

 private:
  void showProfile(profile::Profile profile, const QString& source, std::optional<profile::OriginProfile> origins);

  ModelDocument* document_;
  profile::Profile profile_;
  QString source_;
  profile::FlameTree flame_;
  std::vector<profile::SummaryRow> byOpType_;
  std::vector<profile::SummaryRow> byNode_;
  profile::ProfileMetrics metrics_;
  std::vector<profile::AttributedTime> attributed_;
  profile::MappingStats mapping_;
  std::optional<exec::MemoryReport> memory_;
  std::optional<profile::RunResult> lastRun_;
  std::optional<profile::OriginProfile> origins_;
};

// Writes `text` to `path` through a temporary file, so a failed export never leaves half a file.
Expected<void> writeTextFile(const QString& path, const std::string& text);

}  // namespace onyx::views
