#pragma once
// Planning step 4, fuse epilogues: the element-wise nodes after a host step (Relu, Clip, Add of a residual,
// SiLU as x * Sigmoid(x), GELU as PyTorch exports it) that its kernel agrees to compute in its output pass
// (Kernel::setEpilogue). Each fused node is also prepared on the host fallback, which runs it node by node
// when the kernel cannot fuse in a run (other types or shapes).
#include <unordered_set>

#include "exec/graph_plan.h"
#include "exec/plan_context.h"
#include "exec/plan_place.h"

namespace onyx::exec {

// Fills step.epilogue and step.fusedOps, appends the operands computed before the step (a residual) to
// step.inputs after step.ownInputs, and adds the fused nodes to `absorbed`. Returns the value the step's
// output 0 then holds (node's own output 0 when nothing fused).
Expected<const onyx::Value*> fuseEpilogue(Step& step, GraphPlan& plan, const PlanContext& context,
                                          const ValueFacts& facts, Transfers& transfers,
                                          std::unordered_set<const Node*>& absorbed);

}  // namespace onyx::exec
