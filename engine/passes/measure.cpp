#include "passes/measure.h"

#include <algorithm>
#include <chrono>

#include "passes/model_runs.h"

namespace onyx::passes {

Expected<std::unique_ptr<StepMeasurer>> StepMeasurer::create(const Model& model,
                                                             const MeasureOptions& options) {
  std::unique_ptr<StepMeasurer> measurer(new StepMeasurer(options));
  auto inputs = checkInputs(model, options.inputs, options.bindings, options.seed);
  if (!inputs) return inputs.error();
  measurer->inputs_ = std::move(*inputs);
  auto reference = runForCheck(model, measurer->inputs_);
  if (!reference)
    return makeError("the model does not run before the pipeline: " + reference.error().toString());
  measurer->reference_ = std::move(*reference);
  return measurer;
}

StepCost StepMeasurer::measure(const Model& model) const {
  StepCost cost;
  cost.nodes = countNodes(model);
  // The executor as `onyx run` makes it: the arena (and so the planner's peak) exists from the first run.
  auto executor = exec::Executor::create(model);
  if (!executor) {
    cost.notRunReason = executor.error().toString();
    return cost;
  }
  auto outputs = (*executor)->run(inputs_);
  if (!outputs) {
    cost.notRunReason = outputs.error().toString();
    return cost;
  }
  // Compared now: the outputs may view the arena the next run overwrites.
  for (const OutputError& error :
       compareOutputs(model, *outputs, reference_, exec::Tolerance{options_.rtol, options_.atol})) {
    cost.maxAbsError = std::max(cost.maxAbsError, error.maxAbsError);
    cost.maxRelError = std::max(cost.maxRelError, error.maxRelError);
    cost.withinTolerance = cost.withinTolerance && error.ok;
  }
  std::vector<double> times;
  for (int run = 0; run < std::max(1, options_.runs); ++run) {
    auto start = std::chrono::steady_clock::now();
    auto again = (*executor)->run(inputs_);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!again) {
      cost.notRunReason = again.error().toString();
      return cost;
    }
  }
  std::sort(times.begin(), times.end());
  cost.medianMs = times[times.size() / 2];
  cost.minMs = times.front();
  cost.peakBytes = (*executor)->memoryReport().peakBytes;
  cost.ran = true;
  return cost;
}

}  // namespace onyx::passes
