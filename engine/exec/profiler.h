#pragma once
// Per-node execution events, recorded into a preallocated buffer so recording costs two clock reads and a
// store per node, and exported as Chrome trace JSON (opens in Perfetto). The recorder only records:
// summaries by node, op type or scope are engine/profile's (profile/profile_summary.h).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/dim.h"

namespace onyx::exec {

struct ProfileEvent {
  NodeId node = kNoNode;
  std::string name;  // node name
  // The node's scope (scopePathOf: its module path from dynamo metadata, else its name's scope); set when
  // the profile is mapped onto its model (profile::assignScopes). Empty: read from the name.
  std::string scope;
  std::string opType;
  std::string backend;  // "cpu"
  std::string variant;  // kernel variant, "transfer" for inserted copies; ends with the implementation
  // The code that ran as the variant's last part names it (PreparedNode::implementation: "avx2",
  // "brg:avx512_core"); set while recording, not read back from files.
  std::string implementation;
  int thread = 0;
  // Threads the node could use: its parallel loops and oneDNN's teams ran on at most this many
  // (ThreadPool::threadsForWork); 1 for a node that stayed on the caller, and for fused and transfer events.
  int threads = 1;
  int iteration = 0;
  int depth = 0;        // 0: main graph; >0: inside a control-flow body
  int64_t startNs = 0;  // since the profiler's epoch
  int64_t durationNs = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  int64_t flops = 0;
};

struct IterationMark {
  int iteration = 0;
  int64_t startNs = 0;
  int64_t durationNs = 0;
};

// Chrome trace JSON (Perfetto, chrome://tracing) of any events: what Profiler::chromeTraceJson writes, also
// for profiles read back from files.
std::string chromeTraceJson(const std::vector<ProfileEvent>& events, const std::vector<IterationMark>& iterations);

class Profiler {
 public:
  Profiler();
  int64_t nowNs() const;
  void beginIteration();
  void endIteration();
  int iteration() const { return iteration_; }
  void record(ProfileEvent event) { events_.push_back(std::move(event)); }
  const std::vector<ProfileEvent>& events() const { return events_; }
  // Device backends fill in device times after the work ran.
  ProfileEvent& event(size_t index) { return events_[index]; }
  const std::vector<IterationMark>& iterations() const { return iterations_; }
  void clear();

  std::string chromeTraceJson() const;

 private:
  std::chrono::steady_clock::time_point epoch_;
  std::vector<ProfileEvent> events_;
  std::vector<IterationMark> iterations_;
  int iteration_ = -1;
};

}  // namespace onyx::exec
