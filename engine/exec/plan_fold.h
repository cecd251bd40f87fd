#pragma once
// Planning step 3, fold. Two kinds of work computed once instead of every run:
// - input folds, before the steps are made: a Transpose read only by a MatMul, and a Concat along channels
//   read only by a Conv (one group) or a 2-D pooling, are absorbed into their reader, which takes the
//   operands where they lie (strided, or part by part), so the transposed or joined copy is never written;
//   so is a Mul read only by a 1 x 1 Conv, passed as a Concat is (its two inputs the parts): the channel
//   scale the Conv may take into its weights (KernelContext::scaledInput);
// - constant discovery, step by step: a step reading only constants (or shape arithmetic) keeps its outputs
//   for the next runs, and the inputs a kernel may pack once are marked constant.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "exec/graph_plan.h"
#include "exec/plan_context.h"

namespace onyx::exec {

struct InputFolds {
  // Per reader: per input, the Transpose (or Concat, or scaling Mul) it reads through, or null
  // (Step::transposedInputs, Step::concatenatedInputs).
  std::unordered_map<const Node*, std::vector<const Node*>> transposedInputsOf;
  std::unordered_map<const Node*, std::vector<const Node*>> concatenatedInputsOf;
  std::unordered_set<const Node*> absorbed;  // the folded Transposes, Concats and Muls: no step of their own
};

// Nothing when context.fuseEpilogues is off (the folds are fusions too).
InputFolds findInputFolds(const std::vector<const Node*>& order, const ValueFacts& facts,
                          const PlanContext& context);

// How the step's outputs may be kept (Fold), given what its inputs are; marks its outputs constant or
// shape-derived for the steps after it. Fold::None for every step when `foldConstants` is off.
void decideFold(GraphPlan& plan, Step& step, bool foldConstants);

// Whether every input of the node is a constant or shape arithmetic (and there is at least one): the host
// fallback then runs it once and later runs reuse it, where a device would run it every run.
bool readsOnlyFoldableValues(const GraphPlan& plan, const Step& step);

// Step::constantInputs: the node inputs whose value is the same every run.
void markConstantInputs(const GraphPlan& plan, Step& step);

// Whether a folded step's kept outputs are this run's: constants always; shape arithmetic while no Shape or
// Size step saw new dims; a Shape or Size step while its input (in `slots`) has the dims it had.
bool keptOutputsHold(const GraphPlan& plan, const Step& step, const std::vector<RunValue>& slots);

}  // namespace onyx::exec
