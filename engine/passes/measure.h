#pragma once
// What each step of a pipeline buys: the model runs on the CPU executor on fixed inputs after each step,
// for its latency (median of a few runs), the memory planner's peak, its node count and its worst error
// against the model before the pipeline (pass_manager.h's StepCost).
#include <memory>
#include <vector>

#include "exec/executor.h"
#include "passes/pass_manager.h"

namespace onyx::passes {

class StepMeasurer {
 public:
  // Runs `model` as it is now for the reference outputs.
  static Expected<std::unique_ptr<StepMeasurer>> create(const Model& model, const MeasureOptions& options);
  // Never fails: a model that does not run gives a cost with ran = false and the reason.
  StepCost measure(const Model& model) const;

 private:
  StepMeasurer(MeasureOptions options) : options_(std::move(options)) {}
  MeasureOptions options_;
  exec::NamedValues inputs_;
  std::vector<exec::RunValue> reference_;
};

}  // namespace onyx::passes
