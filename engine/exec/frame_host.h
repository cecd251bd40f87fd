#pragma once
// The kernels' host during a run (KernelHost): gives each output its memory (a view of the arena planned for
// this binding of input shapes, a kept block for graph outputs, or the heap), records what a first run
// allocates so the arena can be planned (plan_memory.h), and runs bodies for control flow and function calls.
#include <set>
#include <vector>

#include "exec/graph_plan.h"
#include "exec/plan_runner.h"

namespace onyx::exec {

// The arena state for the shapes of the frame's inputs (a new one to record when none is planned yet); a
// plan keeps a few bindings and forgets them all when more come.
ArenaState& arenaFor(GraphPlan& plan, const Frame& frame);

class FrameHost final : public KernelHost {
 public:
  FrameHost(const RunEnvironment& env, GraphPlan& plan, Frame& frame, ArenaState* arena, bool recording)
      : env_(env), plan_(plan), frame_(frame), arena_(arena), recording_(recording) {}
  // Outputs that must not go to the arena: kept (folded) values, epilogue intermediates.
  bool heapOnly = false;

  Expected<TensorValue> allocateOutput(size_t index, DataType dtype, Dims dims) override;
  Expected<std::vector<RunValue>> runSubgraph(const Graph& body, std::vector<RunValue> inputs) override;

  void newStep(int s) {
    step_ = s;
    taken_.clear();
  }
  // After step `step_` stored its outputs: a recording run extends the buffers' lifetimes to the slots' last
  // readers (graph outputs escape the arena); a planned run copies out of the arena an output that aliases
  // a buffer dying earlier than the value it became (data-dependent aliases the first run did not show).
  void trackOutput(RunValue& output, int slot);
  // A graph output that is a view of the arena, copied out (the caller keeps outputs past the next run).
  void detachFromArena(RunValue& output) const;

 private:
  TensorValue outputBlock(int request, DataType dtype, Dims dims, int64_t bytes);
  TensorValue recordRequest(size_t index, DataType dtype, Dims dims, int64_t bytes);

  const RunEnvironment& env_;
  GraphPlan& plan_;
  Frame& frame_;
  ArenaState* arena_;
  bool recording_;
  int step_ = 0;
  std::set<int> taken_;  // requests an output of this step already shares in place
};

}  // namespace onyx::exec
