#pragma once
// Per-node figures of a profile for the graph overlay: time, share, FLOPs, bytes and the rates they give.
// Qt-free; the views turn them into colours.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dim.h"
#include "profile/profile.h"

namespace onyx::profile {

enum class OverlayMetric { SelfTime, Share, Flops, Bytes, GflopsPerSecond, GigabytesPerSecond };

struct NodeMetrics {
  int64_t totalNs = 0;  // summed over events (all iterations)
  int64_t count = 0;
  int64_t flops = 0;  // summed over events
  int64_t bytes = 0;  // read + written, summed over events
};

struct ProfileMetrics {
  std::map<NodeId, NodeMetrics> nodes;  // main-graph nodes with events
  int64_t totalNs = 0;                  // all main-graph node time
  int iterations = 1;
};

ProfileMetrics nodeMetrics(const Profile& profile);

// The metric's value for one node: time per iteration in ms, share in %, FLOPs and bytes per iteration,
// GFLOP/s and GB/s achieved. Larger is "hotter" for every metric.
double metricValue(const NodeMetrics& node, const ProfileMetrics& all, OverlayMetric metric);
std::string_view metricName(OverlayMetric metric);             // "self time", "share of total", ...
std::string formatMetric(double value, OverlayMetric metric);  // "3.20 ms", "12.5 %", "1.2 GFLOP"
std::vector<OverlayMetric> allMetrics();

}  // namespace onyx::profile
