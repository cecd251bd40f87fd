#pragma once
// The plan builder: plans a graph, and every body it runs (If/Loop/Scan bodies, model-local function
// bodies), by running the planning steps in order: schedule (plan_schedule.h), the input folds
// (plan_fold.h), then node by node in schedule order: bind its inputs to slots, place it on a backend with
// transfers (plan_place.h), mark its constant inputs, fuse its epilogue (plan_epilogue.h), bind its outputs
// and decide whether it folds; then the graph outputs, layouts (plan_layout.h) and liveness (plan_memory.h).
#include <map>
#include <memory>

#include "exec/graph_plan.h"
#include "exec/plan_context.h"

namespace onyx::exec {

using BodyPlans = std::map<const Graph*, std::unique_ptr<GraphPlan>>;

class PlanBuilder {
 public:
  // Body plans go to `bodies`, keyed by graph, for the runner to find when a node runs a body.
  PlanBuilder(PlanContext context, BodyPlans& bodies) : context_(std::move(context)), bodies_(bodies) {}

  // `depth`: 0 for the main graph.
  Expected<std::unique_ptr<GraphPlan>> build(const Graph& graph, int depth);

  // A node naming a model-local function that no backend runs natively: the function's body is planned once
  // (like an If/Loop body) and the call runs it, or its fused element-wise kernel.
  Expected<std::unique_ptr<PreparedNode>> prepareCall(const Node& node, const Function& function, int depth);
  Expected<void> planBodies(const Node& node, int depth);
  const PlanContext& context() const { return context_; }

 private:
  PlanContext context_;  // imports change while a function body is planned
  BodyPlans& bodies_;
};

}  // namespace onyx::exec
