#include "passes/pass_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "exec/compare.h"
#include "ir/nesting.h"
#include "ir/verify.h"
#include "passes/measure.h"
#include "passes/model_runs.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

size_t countGraphNodes(const Graph& graph) {
  size_t count = graph.nodeCount();
  for (Node* node : graph.nodes())
    for (Graph* body : node->subgraphs()) count += countGraphNodes(*body);
  return count;
}

// The structural errors verify() finds, as "where: message" lines.
std::vector<std::string> structuralErrors(const Model& model) {
  std::vector<std::string> errors;
  for (const Diagnostic& diagnostic : verify(model))
    if (diagnostic.severity == Diagnostic::Severity::Error)
      errors.push_back(diagnostic.where + ": " + diagnostic.message);
  return errors;
}

// The first error of `after` that `before` did not have; empty when none.
std::string newStructuralError(const std::vector<std::string>& before,
                               const std::vector<std::string>& after) {
  for (const std::string& error : after)
    if (std::find(before.begin(), before.end(), error) == before.end()) return error;
  return {};
}

std::string passList(const std::vector<PassStep>& steps) {
  std::string list;
  for (const PassStep& step : steps) {
    if (!list.empty()) list += ", ";
    list += step.pass;
  }
  return list;
}

}  // namespace

Expected<void> checkBeforePasses(const Model& model) {
  if (auto nesting = checkNesting(model); !nesting) return nesting.error();
  std::vector<const Graph*> graphs = {&model.graph()};
  for (const auto& function : model.functions)
    if (function->body) graphs.push_back(function->body.get());
  for (size_t i = 0; i < graphs.size(); ++i)  // bodies join the list as it is walked
    for (const auto& [id, holder] : graphs[i]->bodyHolders())
      for (const Graph* body : holder->subgraphs()) graphs.push_back(body);
  for (const Graph* graph : graphs) {
    auto order = topologicalOrder(*graph);
    if (order) continue;
    std::string where = graph->parent() ? "a body of " + graph->owner()->describe() : "";
    if (const Function* function = enclosingFunction(model, *graph))
      where = "function '" + function->domain + "." + function->name + "'" + (where.empty() ? "" : ", " + where);
    return makeError(order.error().message, where.empty() ? order.error().where : where + ", " + order.error().where);
  }
  ShapeInference shapes = inferShapes(model);
  if (shapes.overLimit) return *shapes.overLimit;
  return {};
}

bool StepVerification::ok() const {
  for (const OutputError& output : outputs)
    if (!output.ok) return false;
  return true;
}

size_t countNodes(const Model& model) {
  size_t count = countGraphNodes(model.graph());
  for (const auto& function : model.functions)
    if (function->body) count += countGraphNodes(*function->body);
  return count;
}

// The outputs of the model as it was after the last verified step (or before the first), on fixed inputs.
// Any edit made outside a verified step (an unverified step, an undo in the GUI) makes it stale.
struct PassManager::Reference {
  exec::NamedValues inputs;
  std::vector<exec::RunValue> outputs;
  bool valid = false;
  int listenerToken = 0;
};

PassManager::PassManager(Model& model) : model_(model), reference_(std::make_unique<Reference>()) {
  Reference* reference = reference_.get();
  reference_->listenerToken = model_.subscribe([reference](const ChangeEvent&) { reference->valid = false; });
}

PassManager::~PassManager() {
  model_.unsubscribe(reference_->listenerToken);
}

Expected<StepVerification> PassManager::verifyAgainstReference(const VerifyOptions& verify) {
  StepVerification result;
  auto outputs = runForCheck(model_, reference_->inputs);
  if (!outputs) return outputs.error();
  result.ran = true;
  result.outputs =
      compareOutputs(model_, *outputs, reference_->outputs, exec::Tolerance{verify.rtol, verify.atol});
  reference_->outputs = std::move(*outputs);
  return result;
}

Expected<PassStep> PassManager::runPass(Pass& pass, const std::string& scope, const PassOptions& options,
                                        const VerifyOptions& verify, bool checkStructure) {
  PassStep step;
  step.pass = std::string(pass.name());
  step.nodesBefore = countNodes(model_);
  // A model loaded broken stays as broken: only errors the step adds count against it.
  std::vector<std::string> errorsBefore =
      checkStructure ? structuralErrors(model_) : std::vector<std::string>{};

  std::optional<StepVerification> notRun;
  if (verify.enabled && !reference_->valid) {
    auto inputs = checkInputs(model_, verify.inputs, verify.bindings, verify.seed);
    auto outputs =
        inputs ? runForCheck(model_, *inputs) : Expected<std::vector<exec::RunValue>>(inputs.error());
    if (outputs) {
      reference_->inputs = std::move(*inputs);
      reference_->outputs = std::move(*outputs);
    } else {
      notRun =
          StepVerification{false, "the model does not run before the step: " + outputs.error().toString()};
    }
  }

  auto start = std::chrono::steady_clock::now();
  Transaction transaction(model_, step.pass);
  Rewriter rewriter(model_);
  PassContext context(model_, rewriter, scope, options);
  auto changed = pass.run(context);
  if (!changed) {
    transaction.revert();
    return changed.error();
  }
  step.changes = transaction.commit();
  step.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // The change log, not the pass's answer, says whether the model changed.
  step.changed = !step.changes->empty();
  step.counters = context.counters();
  step.skips = context.skips();
  step.rewrites = context.rewrites();
  step.stoppedAtRewriteLimit = context.stoppedAtLimit();
  step.nodesAfter = countNodes(model_);

  if (checkStructure && step.changed) {
    std::string error = newStructuralError(errorsBefore, structuralErrors(model_));
    if (!error.empty()) {
      step.changes->undo();
      reference_->valid = false;
      return makeError("the pass left the model invalid: " + error, "pass '" + step.pass + "'");
    }
  }

  if (verify.enabled) {
    if (notRun) {
      step.verification = std::move(notRun);
    } else if (!step.changed) {
      step.verification = StepVerification{true, {}, {}};
      reference_->valid = true;
    } else {
      auto verification = verifyAgainstReference(verify);
      if (!verification) {
        step.changes->undo();
        reference_->valid = false;
        return makeError("the model no longer runs after the pass: " + verification.error().toString());
      }
      if (!verification->ok()) {
        step.changes->undo();
        const OutputError* bad = firstMismatch(verification->outputs);
        reference_->valid = false;
        return makeError(fmt::format("the pass changed output '{}' beyond rtol {:g}, atol {:g}: {}",
                                     bad->output, verify.rtol, verify.atol, bad->reason));
      }
      step.verification = std::move(*verification);
      reference_->valid = true;  // the outputs just computed are the reference for the next step
    }
  }
  return step;
}

PipelineResult PassManager::run(const std::vector<std::string>& pipeline, const PipelineOptions& options) {
  std::vector<std::string> unknown = unknownPasses(pipeline);
  if (!unknown.empty()) {
    PipelineResult result;
    result.nodesBefore = result.nodesAfter = countNodes(model_);
    result.error =
        makeError("unknown pass '" + unknown.front() + "'; `onyx optimize --list` shows the passes");
    return result;
  }
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string& name : pipeline) passes.push_back(createPass(name));
  return runPasses(passes, options);
}

PipelineResult PassManager::runPasses(const std::vector<std::unique_ptr<Pass>>& pipeline,
                                      const PipelineOptions& options) {
  std::vector<PipelineEntry> entries;
  for (const auto& pass : pipeline) entries.push_back({pass.get(), {}, {}});
  return runEntries(entries, options);
}

PipelineResult PassManager::runEntries(const std::vector<PipelineEntry>& pipeline,
                                       const PipelineOptions& options) {
  PipelineResult result;
  result.nodesBefore = countNodes(model_);
  result.nodesAfter = result.nodesBefore;
  if (auto checked = checkBeforePasses(model_); !checked) {
    result.error = checked.error();
    return result;
  }
  int maxRounds = options.fixpoint ? std::max(1, options.maxRounds) : 1;
  std::unique_ptr<StepMeasurer> measurer;
  if (options.measure.enabled) {
    auto made = StepMeasurer::create(model_, options.measure);
    if (made) {
      measurer = std::move(*made);
      result.baseline = measurer->measure(model_);
    } else {
      result.baseline = StepCost{.notRunReason = made.error().toString(), .nodes = result.nodesBefore};
    }
  }
  std::optional<StepCost> lastCost = result.baseline;
  for (int round = 1; round <= maxRounds; ++round) {
    result.rounds = round;
    bool changed = false;
    for (const PipelineEntry& entry : pipeline) {
      Pass* pass = entry.pass;
      auto step = runPass(*pass, entry.scope.value_or(options.scope),
                          entry.options.value_or(options.passOptions), options.verify, options.checkStructure);
      if (!step) {
        std::string before = passList(result.steps);
        result.error =
            makeError(fmt::format("pass '{}' failed{}: {}", pass->name(),
                                  before.empty() ? std::string(" (first pass)") : " after " + before,
                                  step.error().message),
                      step.error().where);
        result.nodesAfter = countNodes(model_);
        return result;
      }
      step->round = round;
      changed = changed || step->changed;
      if (options.measure.enabled) {
        // An unchanged model costs what it cost before the step.
        if (measurer && step->changed) lastCost = measurer->measure(model_);
        step->cost = lastCost;
      }
      if (options.onStep) options.onStep(*step);
      result.steps.push_back(std::move(*step));
    }
    if (!changed) {
      result.reachedFixpoint = true;
      break;
    }
  }
  result.nodesAfter = countNodes(model_);
  return result;
}

std::vector<std::string> unknownPasses(const std::vector<std::string>& pipeline) {
  std::vector<std::string> unknown;
  for (const std::string& name : pipeline)
    if (!createPass(name)) unknown.push_back(name);
  return unknown;
}

}  // namespace onyx::passes
