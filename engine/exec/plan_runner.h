#pragma once
// The plan runner: walks a GraphPlan's steps in order over a frame of slots. It runs each node's prepared
// kernel (or reuses its folded outputs, or copies a transfer), falls back to running an epilogue node by
// node when the kernel declines to fuse it in this run, converts channels-last inputs for kernels that do not
// take them, frees values after their last reader, places intermediates in the arena planned for this
// binding of input shapes (frame_host.h), and reports each step to the profiler (plan_profiling.h).
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "exec/graph_plan.h"
#include "exec/profiler.h"
#include "exec/thread_pool.h"

namespace onyx::exec {

// The values of one run of one graph; a body's frame reads its enclosing scopes through `parent`.
struct Frame {
  const GraphPlan* plan;
  std::vector<RunValue> slots;
  const Frame* parent;
  const RunValue* lookup(const onyx::Value* v) const {
    auto it = plan->slotOf.find(v);
    if (it != plan->slotOf.end()) return &slots[size_t(it->second)];
    return parent ? parent->lookup(v) : nullptr;
  }
};

// What a run needs beyond its plan: the body plans (If/Loop/Scan bodies, function bodies), the pool, the
// profiler when profiling, and the name of the host fallback backend (the backend of the events of nodes it
// runs one by one and of nodes fused into others).
struct RunEnvironment {
  const std::map<const Graph*, std::unique_ptr<GraphPlan>>& bodies;
  ThreadPool& pool;
  Profiler* profiler = nullptr;
  std::string_view hostBackend;
  // When set, receives every node that ran on the host while a device backend is in use (Step::hostReason)
  // and every device node that fell back to the CPU in this run.
  std::vector<HostNodeRun>* hostNodes = nullptr;
  int* channelBlockValues = nullptr;  // when set, counts the outputs written in channel blocks of 16
};

// Runs `plan` on `frame` (its input slots filled) and returns the graph outputs in plain layout. With
// `useArena`, intermediates go to the arena for these input shapes; a first run records and plans it, and
// fails when it needs more than `arenaLimitBytes` (> 0).
Expected<std::vector<RunValue>> runPlan(const RunEnvironment& env, GraphPlan& plan, Frame& frame,
                                        bool useArena, int64_t arenaLimitBytes);

}  // namespace onyx::exec
