#pragma once
// Bisection of a pipeline that breaks a model's outputs, as LLVM's opt-bisect and MLIR's debug counters do
// it: run the pipeline step by step against the original model's outputs to find the first step after
// which they differ beyond tolerance, then search that step's rewrite limit (PassOptions::rewriteLimit) for
// the first single rewrite that breaks them, and name the nodes it touched.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "passes/pass_manager.h"

namespace onyx::passes {

// Bisection applies a pass several times, each time as a fresh object (a pass may keep state per run).
using PassFactory = std::function<std::unique_ptr<Pass>()>;
struct BisectStep {
  PassFactory create;
  std::string scope;                   // "" the whole model
  std::optional<PassOptions> options;  // BisectOptions::passOptions when unset
};
// Steps for registered passes by name; a name that is not registered gives a step without a factory.
std::vector<BisectStep> registeredSteps(const std::vector<std::string>& names);

struct BisectOptions {
  // Inputs by name; when empty, random inputs from `bindings` and `seed` (passes/model_runs.h).
  exec::NamedValues inputs;
  SymBindings bindings;
  uint64_t seed = 1;
  double rtol = 1e-4;  // the tolerance of --verify
  double atol = 1e-5;
  PassOptions passOptions;
  bool fixpoint = false;
  int maxRounds = 10;
};

struct BisectResult {
  bool broken = false;  // some step made the outputs differ from the original's beyond tolerance
  size_t stepsRun = 0;  // steps applied until the breaking one (included), or the whole pipeline
  // The outputs after the breaking step (or after the whole pipeline) against the original's.
  std::vector<OutputError> errors;
  // When broken: the first breaking step, 1-based among the steps applied.
  size_t step = 0;
  std::string pass;
  int round = 1;
  int64_t rewritesInStep = 0;
  // The first rewrite that breaks the outputs: with rewrites 1..K of the step applied they differ, with
  // 1..K-1 they do not. Found when the pass counts its rewrites (pattern passes and elementwise-fusion);
  // otherwise whyNoRewrite says so.
  bool rewriteFound = false;
  std::string whyNoRewrite;
  RewriteRecord rewrite;
  std::vector<OutputError> rewriteErrors;  // with rewrites 1..K applied
  int modelRuns = 0;                       // executor runs the search took
};

// Bisects `pipeline` on a copy of `original` (which is left as it is). Errors: the original or a step does
// not run, or a pass fails.
Expected<BisectResult> bisectPipeline(const Model& original, const std::vector<BisectStep>& pipeline,
                                      const BisectOptions& options);

}  // namespace onyx::passes
