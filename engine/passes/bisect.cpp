#include "passes/bisect.h"

#include <algorithm>
#include <optional>

#include "passes/model_runs.h"

namespace onyx::passes {

std::vector<BisectStep> registeredSteps(const std::vector<std::string>& names) {
  std::vector<BisectStep> steps;
  for (const std::string& name : names) {
    BisectStep step;
    if (createPass(name)) step.create = [name] { return createPass(name); };
    steps.push_back(std::move(step));
  }
  return steps;
}

namespace {

// The search state: a working copy of the model, the reference outputs and the tolerance.
class Bisector {
 public:
  Bisector(const Model& original, const BisectOptions& options)
      : model_(Rewriter::copyModel(original)), manager_(*model_), options_(options) {}

  Expected<void> prepare(const Model& original) {
    auto inputs = checkInputs(original, options_.inputs, options_.bindings, options_.seed);
    if (!inputs) return inputs.error();
    inputs_ = std::move(*inputs);
    auto reference = runForCheck(original, inputs_);
    if (!reference) return makeError("the original model does not run: " + reference.error().toString());
    reference_ = std::move(*reference);
    return {};
  }

  // Applies one pass (limited to `limit` rewrites when set); the caller undoes step.changes.
  Expected<PassStep> apply(const BisectStep& entry, std::optional<int64_t> limit) {
    std::unique_ptr<Pass> pass = entry.create();
    PassOptions passOptions = entry.options.value_or(options_.passOptions);
    if (limit) passOptions.rewriteLimit = limit;
    return manager_.runPass(*pass, entry.scope, passOptions, {}, /*checkStructure=*/false);
  }

  // The outputs of the working model against the original's.
  Expected<std::vector<OutputError>> check(const std::string& when) {
    ++runs_;
    auto outputs = runForCheck(*model_, inputs_);
    if (!outputs) return makeError("the model does not run " + when + ": " + outputs.error().toString());
    return compareOutputs(*model_, *outputs, reference_, exec::Tolerance{options_.rtol, options_.atol});
  }

  // Binary search on the rewrite limit of the breaking step, whose full application `full` broke the
  // outputs with `fullErrors`; the model is as before the step.
  Expected<void> searchRewrite(const BisectStep& factory, const PassStep& full,
                               std::vector<OutputError> fullErrors, BisectResult& result) {
    int64_t good = 0;  // with this many rewrites the outputs hold (none: the model before the step)
    int64_t bad = int64_t(full.rewrites.size());
    RewriteRecord badRecord = full.rewrites.back();
    std::vector<OutputError> badErrors = std::move(fullErrors);
    while (bad - good > 1) {
      int64_t mid = good + (bad - good) / 2;
      auto step = apply(factory, mid);
      if (!step) return step.error();
      auto errors = check("after " + std::to_string(mid) + " rewrites of " + full.pass);
      if (step->changes) step->changes->undo();
      if (!errors) return errors.error();
      if (firstMismatch(*errors)) {
        bad = mid;
        badRecord = step->rewrites.back();
        badErrors = std::move(*errors);
      } else {
        good = mid;
      }
    }
    result.rewriteFound = true;
    result.rewrite = std::move(badRecord);
    result.rewriteErrors = std::move(badErrors);
    return {};
  }

  Model& model() { return *model_; }
  int runs() const { return runs_; }

 private:
  std::unique_ptr<Model> model_;
  PassManager manager_;
  const BisectOptions& options_;
  exec::NamedValues inputs_;
  std::vector<exec::RunValue> reference_;
  int runs_ = 0;
};

}  // namespace

Expected<BisectResult> bisectPipeline(const Model& original, const std::vector<BisectStep>& pipeline,
                                      const BisectOptions& options) {
  for (const BisectStep& step : pipeline)
    if (!step.create) return makeError("the pipeline names a pass that is not registered");
  Bisector bisector(original, options);
  if (auto ok = bisector.prepare(original); !ok) return ok.error();
  BisectResult result;
  int rounds = options.fixpoint ? std::max(1, options.maxRounds) : 1;
  for (int round = 1; round <= rounds; ++round) {
    bool changed = false;
    for (const BisectStep& factory : pipeline) {
      auto step = bisector.apply(factory, std::nullopt);
      if (!step) return step.error();
      ++result.stepsRun;
      if (!step->changed) continue;
      changed = true;
      auto errors = bisector.check("after " + step->pass);
      if (!errors) return errors.error();
      result.errors = *errors;
      if (!firstMismatch(*errors)) continue;
      result.broken = true;
      result.step = result.stepsRun;
      result.pass = step->pass;
      result.round = round;
      result.rewritesInStep = int64_t(step->rewrites.size());
      step->changes->undo();
      if (step->rewrites.empty()) {
        result.whyNoRewrite = "pass '" + step->pass + "' does not count its rewrites (not a pattern pass)";
      } else if (auto ok = bisector.searchRewrite(factory, *step, std::move(*errors), result); !ok) {
        return ok.error();
      }
      result.modelRuns = bisector.runs();
      return result;
    }
    if (!changed) break;
  }
  result.modelRuns = bisector.runs();
  return result;
}

}  // namespace onyx::passes
