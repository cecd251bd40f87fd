#pragma once
// The graph overlay of a profile: each profiled node filled by a heat colour of the chosen metric, labelled
// with its time, a legend for the ramp, and each node's time as the value collapsed scopes add up.
#include <QColor>
#include <QString>
#include <unordered_map>
#include <vector>

#include "profile/fused_attribution.h"
#include "profile/node_metrics.h"

namespace onyx::views {

struct OverlayEntry {
  QColor fill;
  QString label;      // "1.25 ms" (and the metric when it is not time: "1.25 ms · 3.1 GFLOP/s")
  double value = 0;   // time per iteration in ms: what a collapsed scope sums
  double metric = 0;  // the chosen metric's value
  bool attributed = false;  // a fused kernel's time split over its body by FLOPs: estimated, not measured
};

struct ProfileOverlay {
  profile::OverlayMetric metric = profile::OverlayMetric::SelfTime;
  std::unordered_map<NodeId, OverlayEntry> nodes;
  std::vector<std::pair<QColor, QString>> legend;   // coldest first
  static QString formatTotal(double milliseconds);  // a collapsed scope's label
};

ProfileOverlay buildOverlay(const profile::ProfileMetrics& metrics, profile::OverlayMetric metric);

// Adds the body nodes of fused functions (what the canvas shows inside a fused node) with their share of the
// fused kernel's time, labelled "≈ 0.12 ms (attributed)", coloured on the overlay's time ramp.
void addAttributedTime(ProfileOverlay& overlay, const std::vector<profile::AttributedTime>& rows,
                       const Model& model, int iterations);

}  // namespace onyx::views
