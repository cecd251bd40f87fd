#pragma once
// The plan runner's profiling hooks: one event per step (node or transfer: backend, kernel variant, bytes
// read and written, flops), one per epilogue node the host ran one by one (its time taken out of the
// step's), and a zero-length event per node fused into a step (folded Transpose or Concat, fused epilogue),
// so every node of the graph appears in the profile.
#include <cstdint>
#include <string_view>
#include <vector>

#include "exec/graph_plan.h"
#include "exec/profiler.h"

namespace onyx::exec {

// What running a step came to, for its event.
struct StepOutcome {
  int64_t startNs = 0;
  int64_t flops = 0;
  int threads = 1;      // the node's thread budget (ThreadPool::threadsForWork)
  bool fused = false;   // the kernel computed the epilogue
  bool reused = false;  // a folded step's kept outputs
};

// The event of an epilogue node run by itself (iteration, depth and backend are set when recorded).
ProfileEvent epilogueEvent(const Profiler& profiler, const EpilogueStep& ep, int64_t startNs,
                           const std::vector<const RunValue*>& inputs, const RunValue& output,
                           const KernelContext& context);

// Records the step's event, then its epilogue nodes' (run one by one: `epilogueEvents`, moved from), then
// those of the nodes fused into it. `slots`: the frame after the step ran.
void recordStep(Profiler& profiler, const GraphPlan& plan, const Step& step,
                const std::vector<RunValue>& slots, const StepOutcome& outcome,
                std::vector<ProfileEvent>& epilogueEvents, std::string_view hostBackend);

}  // namespace onyx::exec
