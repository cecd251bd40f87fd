#pragma once
// Runs passes over a model, one Transaction per pass application, and keeps a step record per application:
// what the pass counted and skipped, the node count before and after, its wall time, the ChangeLog that
// undoes and redoes it (the GUI wraps each step in a QUndoCommand), and optionally a numeric check of the
// step (the executor run before and after it on the same inputs).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "ir/rewriter.h"
#include "passes/pass.h"

namespace onyx::passes {

struct VerifyOptions {
  bool enabled = false;
  // Inputs by name; when empty, random inputs (exec::randomInput, symbolic dims from `bindings`, dims
  // without a binding become 1) seeded with `seed`.
  exec::NamedValues inputs;
  SymBindings bindings;
  uint64_t seed = 1;
  // A step whose outputs differ beyond |a - b| <= atol + rtol * |b| fails: it is reverted and reported.
  double rtol = 1e-4;
  double atol = 1e-5;
};

// The worst error of one graph output after a step, against the outputs before it.
struct OutputError {
  std::string output;
  double maxAbsError = 0;
  double maxRelError = 0;
  bool ok = true;
  std::string reason;  // the first mismatch, when !ok
};

struct StepVerification {
  bool ran = false;
  std::string notRunReason;  // the executor could not run the model (unsupported op, no inputs...)
  std::vector<OutputError> outputs;
  bool ok() const;
};

// The cost of each step (`onyx optimize --measure`, the passes dock's Measure column): after each step the
// model runs on the CPU executor on fixed inputs, against the outputs of the model before the pipeline.
struct MeasureOptions {
  bool enabled = false;
  // Inputs by name; when empty, random inputs as for VerifyOptions.
  exec::NamedValues inputs;
  SymBindings bindings;
  uint64_t seed = 1;
  int runs = 5;  // timed runs after one warm-up run; the median is reported
  // withinTolerance: every output within |a - b| <= atol + rtol * |b| of the original's.
  double rtol = 1e-4;
  double atol = 1e-5;
};

struct StepCost {
  bool ran = false;
  std::string notRunReason;  // the executor could not run the model
  double medianMs = 0;       // latency, median of MeasureOptions::runs
  double minMs = 0;          // and the fastest of them (the steadier figure on a busy machine)
  int64_t peakBytes = 0;     // the memory planner's peak of live intermediates
  size_t nodes = 0;          // countNodes()
  // The worst error over all outputs against the model before the pipeline.
  double maxAbsError = 0;
  double maxRelError = 0;
  bool withinTolerance = true;
};

// Whether the manager runs verify() (ir/verify.h) after each step unless told otherwise: in debug builds.
#ifdef NDEBUG
inline constexpr bool kCheckStructureByDefault = false;
#else
inline constexpr bool kCheckStructureByDefault = true;
#endif

// One application of one pass.
struct PassStep {
  std::string pass;
  int round = 1;  // the pipeline round (fixpoint runs repeat the pipeline)
  // Whether the step edited the model: its change log recorded edits, whatever the pass returned (a pass
  // that edits and says "unchanged" still gets an undoable step).
  bool changed = false;
  std::vector<PassCounter> counters;
  std::vector<PassSkip> skips;
  // Every rewrite, in order, with the nodes it touched; stoppedAtRewriteLimit when PassOptions::rewriteLimit
  // cut the pass short.
  std::vector<RewriteRecord> rewrites;
  bool stoppedAtRewriteLimit = false;
  size_t nodesBefore = 0;  // nodes in the main graph and all bodies
  size_t nodesAfter = 0;
  double milliseconds = 0;
  // The step's edits: undo() restores the model as it was before the step, redo() applies it again.
  // Empty (no edits) when the pass changed nothing.
  std::shared_ptr<ChangeLog> changes;
  std::optional<StepVerification> verification;
  std::optional<StepCost> cost;  // with MeasureOptions::enabled
};

struct PipelineOptions {
  bool fixpoint = false;  // repeat the pipeline until a round changes nothing
  int maxRounds = 10;     // at most this many rounds when fixpoint is set
  std::string scope;      // "" the whole model; otherwise the PassContext scope
  PassOptions passOptions;
  VerifyOptions verify;
  MeasureOptions measure;
  // Runs verify() on the model after each step; an error it finds that was not there before the step
  // reverts the step and fails the pipeline, naming the pass. Tests turn it on; release builds leave it off.
  bool checkStructure = kCheckStructureByDefault;
  // Called after each step (the GUI's progress and history).
  std::function<void(const PassStep&)> onStep;
};

struct PipelineResult {
  std::vector<PassStep> steps;  // every step applied, in order; a failed step is not among them
  int rounds = 0;
  bool reachedFixpoint = false;  // fixpoint runs: the last round changed nothing
  size_t nodesBefore = 0;
  size_t nodesAfter = 0;
  std::optional<StepCost> baseline;  // the model before the first step, with MeasureOptions::enabled
  // Set when a pass failed (or its numeric check did): names the pass and the passes before it. The failed
  // step's transaction was reverted; the steps before it stay applied.
  std::optional<Error> error;
};

// One entry of a pipeline: a pass with, where set, its own scope and options instead of the pipeline's (the
// steps of a recipe, passes/recipe.h). The caller owns the pass.
struct PipelineEntry {
  Pass* pass = nullptr;
  std::optional<std::string> scope;
  std::optional<PassOptions> options;
};

// Nodes in the main graph, bodies and model-local functions.
size_t countNodes(const Model& model);

class PassManager {
 public:
  explicit PassManager(Model& model);
  ~PassManager();
  Model& model() { return model_; }
  PassManager(const PassManager&) = delete;
  PassManager& operator=(const PassManager&) = delete;

  // Applies one pass once. On error the pass's transaction is reverted and the model is unchanged. With
  // `checkStructure`, a structural error (verify()) the step introduced is such an error.
  Expected<PassStep> runPass(Pass& pass, const std::string& scope = {}, const PassOptions& options = {},
                             const VerifyOptions& verify = {},
                             bool checkStructure = kCheckStructureByDefault);
  // Runs passes by name (each must be registered), once or to a fixpoint.
  PipelineResult run(const std::vector<std::string>& pipeline, const PipelineOptions& options = {});
  // Same, with pass objects (passes outside the registry: tests, plugins); each is run once per round.
  PipelineResult runPasses(const std::vector<std::unique_ptr<Pass>>& pipeline,
                           const PipelineOptions& options = {});
  PipelineResult runEntries(const std::vector<PipelineEntry>& pipeline, const PipelineOptions& options = {});

 private:
  struct Reference;  // cached outputs of the last verified state
  Expected<StepVerification> verifyAgainstReference(const VerifyOptions& verify);
  Model& model_;
  std::unique_ptr<Reference> reference_;
};

// What must hold before any pass runs, else the first pass to walk the model would fail with an unclear error
// (a cycle was "pass 'elementwise-fusion' failed after" 20 pass names) or recurse without end: no graph has a
// cycle (the error names its nodes), nesting and function calls are within the limit (ir/nesting.h), and
// no shape input is declared over the resource policy's length (as `onyx shapes` reports it). Run by
// PassManager::runEntries before the first step; the CLI calls it first to stop before printing steps.
Expected<void> checkBeforePasses(const Model& model);

// Names of the passes in `pipeline` that are not registered (for usage errors).
std::vector<std::string> unknownPasses(const std::vector<std::string>& pipeline);

}  // namespace onyx::passes
