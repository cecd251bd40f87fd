#include "profile_overlay.h"

#include <algorithm>
#include <cmath>

#include "profile_colors.h"

namespace onyx::views {

QString ProfileOverlay::formatTotal(double milliseconds) {
  return QStringLiteral("Σ ") +
         QString::fromStdString(profile::formatMetric(milliseconds, profile::OverlayMetric::SelfTime));
}

namespace {
// Square root spreads the many small nodes over more of the ramp while keeping the order of values.
double rampPosition(double value, double max) {
  return max > 0 ? std::sqrt(std::max(0.0, value) / max) : 0;
}
}  // namespace

ProfileOverlay buildOverlay(const profile::ProfileMetrics& metrics, profile::OverlayMetric metric) {
  ProfileOverlay overlay;
  overlay.metric = metric;
  double max = 0;
  for (const auto& [id, node] : metrics.nodes)
    max = std::max(max, profile::metricValue(node, metrics, metric));
  for (const auto& [id, node] : metrics.nodes) {
    OverlayEntry entry;
    entry.metric = profile::metricValue(node, metrics, metric);
    entry.value = profile::metricValue(node, metrics, profile::OverlayMetric::SelfTime);
    entry.fill = heatColor(rampPosition(entry.metric, max));
    entry.label =
        QString::fromStdString(profile::formatMetric(entry.value, profile::OverlayMetric::SelfTime));
    if (metric != profile::OverlayMetric::SelfTime)
      entry.label +=
          QStringLiteral(" · ") + QString::fromStdString(profile::formatMetric(entry.metric, metric));
    overlay.nodes.emplace(id, std::move(entry));
  }
  for (double fraction : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    double value = max * fraction * fraction;  // the ramp is in square-root space
    overlay.legend.push_back(
        {heatColor(fraction), QString::fromStdString(profile::formatMetric(value, metric))});
  }
  return overlay;
}

}  // namespace onyx::views
