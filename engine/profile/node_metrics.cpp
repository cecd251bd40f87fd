#include "profile/node_metrics.h"

#include <fmt/format.h>

#include <algorithm>

namespace onyx::profile {

ProfileMetrics nodeMetrics(const Profile& profile) {
  ProfileMetrics out;
  out.iterations = std::max(1, profile.iterationCount());
  for (const exec::ProfileEvent& e : profile.events) {
    if (e.depth > 0) continue;
    out.totalNs += e.durationNs;
    if (e.node == kNoNode) continue;
    NodeMetrics& m = out.nodes[e.node];
    m.totalNs += e.durationNs;
    m.count++;
    m.flops += e.flops;
    m.bytes += e.bytesRead + e.bytesWritten;
  }
  return out;
}

double metricValue(const NodeMetrics& node, const ProfileMetrics& all, OverlayMetric metric) {
  double iterations = std::max(1, all.iterations);
  double seconds = double(node.totalNs) * 1e-9;
  switch (metric) {
    case OverlayMetric::SelfTime:
      return double(node.totalNs) / 1e6 / iterations;
    case OverlayMetric::Share:
      return all.totalNs > 0 ? 100.0 * double(node.totalNs) / double(all.totalNs) : 0;
    case OverlayMetric::Flops:
      return double(node.flops) / iterations;
    case OverlayMetric::Bytes:
      return double(node.bytes) / iterations;
    case OverlayMetric::GflopsPerSecond:
      return seconds > 0 ? double(node.flops) / seconds / 1e9 : 0;
    case OverlayMetric::GigabytesPerSecond:
      return seconds > 0 ? double(node.bytes) / seconds / 1e9 : 0;
  }
  return 0;
}

std::string_view metricName(OverlayMetric metric) {
  switch (metric) {
    case OverlayMetric::SelfTime:
      return "self time";
    case OverlayMetric::Share:
      return "share of total";
    case OverlayMetric::Flops:
      return "FLOPs";
    case OverlayMetric::Bytes:
      return "bytes";
    case OverlayMetric::GflopsPerSecond:
      return "achieved GFLOP/s";
    case OverlayMetric::GigabytesPerSecond:
      return "achieved GB/s";
  }
  return "";
}

namespace {
std::string scaled(double value, std::string_view unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T"};
  int p = 0;
  while (std::abs(value) >= 1000 && p < 4) value /= 1000, ++p;
  return fmt::format("{:.3g} {}{}", value, prefixes[p], unit);
}
}  // namespace

std::string formatMetric(double value, OverlayMetric metric) {
  switch (metric) {
    case OverlayMetric::SelfTime:
      return value >= 1 ? fmt::format("{:.2f} ms", value) : fmt::format("{:.1f} us", value * 1000);
    case OverlayMetric::Share:
      return fmt::format("{:.1f} %", value);
    case OverlayMetric::Flops:
      return scaled(value, "FLOP");
    case OverlayMetric::Bytes:
      return scaled(value, "B");
    case OverlayMetric::GflopsPerSecond:
      return fmt::format("{:.2f} GFLOP/s", value);
    case OverlayMetric::GigabytesPerSecond:
      return fmt::format("{:.2f} GB/s", value);
  }
  return {};
}

std::vector<OverlayMetric> allMetrics() {
  return {OverlayMetric::SelfTime, OverlayMetric::Share,           OverlayMetric::Flops,
          OverlayMetric::Bytes,    OverlayMetric::GflopsPerSecond, OverlayMetric::GigabytesPerSecond};
}

}  // namespace onyx::profile
