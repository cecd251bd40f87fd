#include "profile_overlay.h"

#include <algorithm>
#include <cmath>

#include <QObject>

#include "ir/model.h"
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

void addAttributedTime(ProfileOverlay& overlay, const std::vector<profile::AttributedTime>& rows,
                       const Model& model, int iterations) {
  double maxMs = 0;
  for (const auto& [id, entry] : overlay.nodes) maxMs = std::max(maxMs, entry.value);
  for (const profile::AttributedTime& row : rows) {
    const Node* fused = model.graph().findNode(row.fusedNode);
    if (!fused) continue;
    const Function* function = model.findFunction(fused->domain(), fused->opType(), fused->overload());
    if (!function || !function->body) continue;
    for (const Node* inner : function->body->nodes()) {
      if (inner->name() != row.bodyNode) continue;
      OverlayEntry entry;
      entry.value = static_cast<double>(row.totalNs) / 1e6 / std::max(1, iterations);
      entry.metric = entry.value;
      entry.attributed = true;
      entry.fill = heatColor(rampPosition(entry.value, maxMs));
      entry.label = QStringLiteral("≈ ") +
                    QString::fromStdString(profile::formatMetric(entry.value, profile::OverlayMetric::SelfTime)) +
                    QObject::tr(" (attributed)");
      overlay.nodes[inner->id()] = std::move(entry);
    }
  }
}

}  // namespace onyx::views
