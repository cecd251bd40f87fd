// The plan runner (plan_runner.h): the run loop over a graph plan's steps.
#include "exec/plan_runner.h"

#include <cstddef>  // defines __GLIBC__ on glibc systems
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <optional>
#include <span>

#include "exec/channels_last.h"
#include "exec/frame_host.h"
#include "exec/plan_fold.h"
#include "exec/plan_memory.h"
#include "exec/plan_profiling.h"
#include "util/limits.h"

namespace onyx::exec {

namespace {

int64_t valuesBytes(std::span<const RunValue* const> values) {
  int64_t bytes = 0;
  for (const RunValue* value : values)
    if (const auto* t = value ? std::get_if<TensorValue>(value) : nullptr) bytes += int64_t(t->byteSize());
  return bytes;
}

// One run of one graph plan; the scratch vectors are reused from step to step.
class PlanRun {
 public:
  PlanRun(const RunEnvironment& env, GraphPlan& plan, Frame& frame, ArenaState* arena, bool recording)
      : env_(env),
        profiler_(env.profiler),
        plan_(plan),
        frame_(frame),
        arena_(arena),
        recording_(recording),
        host_(env, plan, frame, arena, recording) {}

  Expected<std::vector<RunValue>> run(int64_t arenaLimitBytes);

 private:
  bool keptOutputsStand(const Step& step) const;
  void releaseAfter(const Step& step, size_t s);
  Expected<void> runStep(Step& step, StepOutcome& outcome);
  Expected<void> runTransfer(const Step& step);
  Expected<void> runNode(Step& step, StepOutcome& outcome);
  std::optional<std::vector<RunValue>> gatherInputs(const Step& step, Dims& channelsLastDims);
  Expected<void> runEpilogue(const Step& step, RunValue& value);
  void keepFolded(Step& step);
  std::vector<RunValue> results();

  const RunEnvironment& env_;
  Profiler* profiler_;
  GraphPlan& plan_;
  Frame& frame_;
  ArenaState* arena_;
  bool recording_;
  FrameHost host_;
  std::vector<const RunValue*> inputPtrs_;
  std::vector<RunValue> outputs_;
  std::vector<ProfileEvent> epilogueEvents_;  // epilogue nodes run one by one
  std::vector<RunValue> converted_;           // channels-last inputs in plain storage, for this step
  const RunValue absent_;
  Backend* pendingReadback_ = nullptr;  // a device whose readbacks complete at its next sync
};

Expected<std::vector<RunValue>> PlanRun::run(int64_t arenaLimitBytes) {
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    Step& step = plan_.steps[s];
    // A folded step whose outputs stand in the slots from the last run (the main graph keeps them) has
    // nothing to do; with a profiler it still reports itself.
    if (!profiler_ && step.folded && keptOutputsStand(step)) {
      releaseAfter(step, s);
      continue;
    }
    host_.newStep(int(s));
    StepOutcome outcome;
    outcome.startNs = profiler_ ? profiler_->nowNs() : 0;
    epilogueEvents_.clear();
    const bool deviceStep = step.backend && !step.backend->usesHostMemory();
    if (profiler_ && deviceStep) step.backend->beginProfiledStep(*profiler_);
    if (auto ran = runStep(step, outcome); !ran) return ran.error();
    if (profiler_) {
      // The step's own event comes first; the nodes fused into it follow with no time of their own.
      size_t stepEvent = profiler_->events().size();
      recordStep(*profiler_, plan_, step, frame_.slots, outcome, epilogueEvents_, env_.hostBackend);
      if (deviceStep) step.backend->endProfiledStep(*profiler_, stepEvent);
    }
    releaseAfter(step, s);
  }
  // The main graph's readbacks complete in the executor's finishRun, with the run's one submit; a body's
  // outputs are read by the node that ran it as soon as this returns.
  if (pendingReadback_ && plan_.depth > 0) {
    if (auto synced = pendingReadback_->sync(); !synced) return synced.error();
  }
  // Every step ran or had its kept outputs checked against this run's dims: the shape arithmetic kept now
  // holds for the epoch the run ended in, even where a later Shape step of the run started a new one (else
  // the next run would compute it again, and a device would record its commands once more).
  for (Step& step : plan_.steps)
    if (step.fold == Fold::Shape && step.folded) step.foldedEpoch = plan_.shapeEpoch;
  std::vector<RunValue> out = results();
  if (recording_) {
#if defined(__GLIBC__)
    // The recording run allocated each tensor on its own; glibc keeps what they freed in its heap (it raises
    // its mmap threshold after the first large free), which left bert_small_int4's 12 MB of intermediates
    // resident beside the arena. Hand it back once, before the arena is allocated.
    malloc_trim(0);
#endif
    auto planned = planArena(plan_, *arena_, arenaLimitBytes);
    if (!planned) return planned.error();
  }
  return out;
}

bool PlanRun::keptOutputsStand(const Step& step) const {
  return keptOutputsHold(plan_, step, frame_.slots) &&
         std::all_of(step.outputs.begin(), step.outputs.end(), [&](int slot) {
           return slot < 0 || !std::holds_alternative<std::monostate>(frame_.slots[size_t(slot)]);
         });
}

// Releases what step s was the last to read (and its defined-but-unused outputs). Constants and shape
// arithmetic stay for the next run.
void PlanRun::releaseAfter(const Step& step, size_t s) {
  auto release = [&](int slot) {
    if (slot >= 0 && !plan_.isConstant[size_t(slot)] && !plan_.isShapeDerived[size_t(slot)] &&
        plan_.lastUse[size_t(slot)] <= int(s))
      frame_.slots[size_t(slot)] = RunValue();
  };
  for (int slot : step.inputs) release(slot);
  for (int slot : step.captures) release(slot);
  for (int slot : step.outputs) release(slot);
}

Expected<void> PlanRun::runStep(Step& step, StepOutcome& outcome) {
  if (step.folded && keptOutputsHold(plan_, step, frame_.slots)) {
    for (size_t i = 0; i < step.outputs.size(); ++i)
      if (step.outputs[i] >= 0) frame_.slots[size_t(step.outputs[i])] = (*step.folded)[i];
    outcome.reused = true;
    return {};
  }
  if (!step.node) {
    auto moved = runTransfer(step);
    if (moved && step.fold != Fold::None) keepFolded(step);
    return moved;
  }
  // A node reads host memory: readbacks recorded before it must have landed.
  if (pendingReadback_) {
    if (auto synced = pendingReadback_->sync(); !synced) return synced.error();
    pendingReadback_ = nullptr;
  }
  auto ran = runNode(step, outcome);
  if (ran && env_.hostNodes) {
    if (!step.hostReason.empty())
      env_.hostNodes->push_back({step.node->describe(), step.hostReason});
    else if (std::string_view why = step.prepared->fallbackReason(); !why.empty())
      env_.hostNodes->push_back({step.node->describe(), "fell back to the CPU: " + std::string(why)});
  }
  return ran;
}

Expected<void> PlanRun::runTransfer(const Step& step) {
  const auto* t = std::get_if<TensorValue>(&frame_.slots[size_t(step.inputs[0])]);
  if (!t) {
    frame_.slots[size_t(step.outputs[0])] = frame_.slots[size_t(step.inputs[0])];
    return {};
  }
  TensorValue plain = t->toPlainLayout();
  // Readbacks are recorded, not waited for: the next node step (or the end of the run) syncs once for all.
  auto moved = step.toHost ? step.backend->toHostLater(plain) : step.backend->toDevice(plain);
  if (!moved) return moved.error();
  if (step.toHost) pendingReadback_ = step.backend;
  frame_.slots[size_t(step.outputs[0])] = std::move(*moved);
  return {};
}

// Fills inputPtrs_. Channels-last inputs: viewed as plain (N, spatial..., C) tensors by a layout-transparent
// node whose output may stay channels-last (the views are returned and must outlive the run), converted for
// kernels that do not take them. Inputs in channel blocks the kernel does not take are converted first (the
// planner lets no such value reach one; this keeps any other reader correct).
std::optional<std::vector<RunValue>> PlanRun::gatherInputs(const Step& step, Dims& channelsLastDims) {
  inputPtrs_.clear();
  converted_.clear();
  converted_.reserve(2 * step.inputs.size());  // pointers into it must stay valid
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const int slot = step.inputs[i];
    inputPtrs_.push_back(slot >= 0 ? &frame_.slots[size_t(slot)] : &absent_);
    if (const auto* t = std::get_if<TensorValue>(inputPtrs_.back());
        t && t->blocked16() && !step.prepared->acceptsBlocked16(step.kernelInput(i))) {
      converted_.emplace_back(t->toPlainLayout());
      inputPtrs_.back() = &converted_.back();
    }
  }
  std::optional<std::vector<RunValue>> views;
  if (step.channelsLastOut && step.epilogue.empty() && isLayoutTransparent(*step.node))
    views = channelsLastViews(inputPtrs_, channelsLastDims);
  for (size_t i = 0; i < inputPtrs_.size(); ++i) {
    if (views) {
      inputPtrs_[i] = &(*views)[i];
    } else if (const auto* t = std::get_if<TensorValue>(inputPtrs_[i]);
               t && t->channelsLast() && !step.prepared->acceptsChannelsLast(step.kernelInput(i))) {
      converted_.emplace_back(t->toPlainLayout());
      inputPtrs_[i] = &converted_.back();
    }
  }
  return views;
}

Expected<void> PlanRun::runNode(Step& step, StepOutcome& outcome) {
  Dims channelsLastDims;
  std::optional<std::vector<RunValue>> views = gatherInputs(step, channelsLastDims);
  outputs_.assign(step.outputs.size(), RunValue());
  std::span<const RunValue* const> all(inputPtrs_);
  size_t own = std::min(step.ownInputs, all.size()), nodeInputs = std::min(step.partsBegin, own);
  KernelContext context(*step.node, step.opset, all.first(nodeInputs), outputs_, host_, env_.pool);
  context.setEpilogueOperands(all.subspan(own));
  context.setTransposedInputs(step.transposedInputs);
  context.setConstantInputs(step.constantInputs);
  for (size_t i = 0; i < step.transposedInputs.size(); ++i)
    if (auto perm = context.inputPermutation(i); !perm) return perm.error();
  context.setConcatenatedInputs(step.concatenatedInputs, all.subspan(nodeInputs, own - nodeInputs));
  if (auto joined = context.checkConcatenatedInputs(); !joined) return joined.error();
  context.setOutputMayBeChannelsLast(step.channelsLastOut);
  outcome.fused = !step.epilogue.empty() && step.prepared->canFuseEpilogue(context);
  context.setFusingEpilogue(outcome.fused);
  // An epilogue that runs node by node reads plain or channels-last storage only.
  context.setOutputMayBeBlocked16(step.blocked16Out && (step.epilogue.empty() || outcome.fused));
  const bool kept = step.fold != Fold::None;
  host_.heapOnly = (!step.epilogue.empty() && !outcome.fused) || kept;  // kept values: not arena
  // Flop counters read input shapes only, so the node's budget is known before it runs (and before a
  // oneDNN kernel creates its primitive, which may fix its team size then).
  // Without sizing and profiling the counter is not asked: a device replay walks every step on the host, and
  // the per-node cost showed (gpt2_small on an H200, 1.95 -> 3.40 ms).
  const bool sizing = ThreadPool::sizesNodes();
  if (sizing || profiler_) outcome.flops = step.prepared->flops(context);
  outcome.threads = sizing ? env_.pool.threadsForWork(outcome.flops, valuesBytes(all.first(own)) + step.outputBytes)
                           : env_.pool.threadCount();
  Expected<void> ran;
  const bool shared = env_.pool.sharesCores();
  const uint64_t sharedJobs = shared ? env_.pool.sharedJobs() : 0;
  {
    std::optional<ThreadPool::NodeBudget> budget;
    if (sizing) budget.emplace(env_.pool, outcome.threads);
    ran = step.prepared->run(context);
  }
  // In a shared-cores run a node that gave its helper no tasks ran on the caller (oneDNN's primitives run on
  // one thread there).
  if (shared && env_.pool.sharedJobs() == sharedJobs) outcome.threads = 1;
  host_.heapOnly = false;
  if (!ran) return ran.error();
  if (views && !adoptChannelsLast(outputs_[0], channelsLastDims))
    return context.error("computed an output of unexpected dims on channels-last inputs");
  if (const auto* t = std::get_if<TensorValue>(&outputs_[0]); t && t->blocked16()) {
    if (!step.blocked16Out) return context.error("wrote channel blocks of 16 that a reader cannot take");
    if (env_.channelBlockValues) ++*env_.channelBlockValues;
  }
  if (!step.epilogue.empty() && !outcome.fused) {
    auto chained = runEpilogue(step, outputs_[0]);
    if (!chained) return chained.error();
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (step.outputs[i] >= 0 && std::holds_alternative<std::monostate>(outputs_[i]))
      return context.error("produced no value for output " + std::to_string(i));
    // A view or reshape of an empty tensor is not allocated, so allocateOutput never checked its dims.
    if (const auto* t = std::get_if<TensorValue>(&outputs_[i]); t && !t->empty() && t->count() == 0)
      if (auto size = checkTensorSize(t->dims(), int64_t(elementBytes(t->dtype())),
                                      step.node->opType() + " output " + std::to_string(i), step.node->describe());
          !size)
        return size.error();
  }
  step.outputBytes = 0;
  for (const RunValue& out : outputs_)
    if (const auto* t = std::get_if<TensorValue>(&out)) step.outputBytes += int64_t(t->byteSize());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    int slot = step.outputs[i];
    if (slot < 0) continue;
    host_.trackOutput(outputs_[i], slot);
    frame_.slots[size_t(slot)] = std::move(outputs_[i]);
  }
  if (kept) keepFolded(step);
  return {};
}

// Runs a step's epilogue nodes one by one after its kernel declined to fuse them; `value` holds the
// producer's output 0 and receives the last node's output. Only the last output goes to the arena.
Expected<void> PlanRun::runEpilogue(const Step& step, RunValue& value) {
  std::vector<RunValue> chain;
  chain.push_back(std::move(value));
  for (size_t i = 0; i < step.epilogue.size(); ++i) {
    const EpilogueStep& ep = step.epilogue[i];
    std::vector<const RunValue*> inputs;
    std::vector<RunValue> plain;  // the node's kernel reads plain storage
    plain.reserve(ep.inputs.size());
    for (int slot : ep.inputs) {
      const RunValue& in = slot >= 0    ? frame_.slots[size_t(slot)]
                           : slot == -1 ? absent_
                                        : chain[size_t(kChainValue - slot)];
      plain.push_back(plainLayout(in));
      inputs.push_back(&plain.back());
    }
    std::vector<RunValue> outputs(1);
    host_.heapOnly = i + 1 < step.epilogue.size();
    KernelContext context(*ep.node, ep.opset, inputs, outputs, host_, env_.pool);
    int64_t start = profiler_ ? profiler_->nowNs() : 0;
    const bool sizing = ThreadPool::sizesNodes();
    // An epilogue node writes about what it reads.
    const int threads = sizing ? env_.pool.threadsForWork(ep.prepared->flops(context), 2 * valuesBytes(inputs))
                               : env_.pool.threadCount();
    Expected<void> ran;
    {
      std::optional<ThreadPool::NodeBudget> budget;
      if (sizing) budget.emplace(env_.pool, threads);
      ran = ep.prepared->run(context);
    }
    host_.heapOnly = false;
    if (!ran) return ran.error();
    if (profiler_) {
      epilogueEvents_.push_back(epilogueEvent(*profiler_, ep, start, inputs, outputs[0], context));
      epilogueEvents_.back().threads = threads;
    }
    chain.push_back(std::move(outputs[0]));
  }
  value = std::move(chain.back());
  return {};
}

// A folded step's outputs, kept for the next runs (with the dims or shape epoch they hold for).
void PlanRun::keepFolded(Step& step) {
  if (step.fold == Fold::Source) {
    if (step.folded) ++plan_.shapeEpoch;  // the dims changed: what was computed from them is stale
    const auto* t = std::get_if<TensorValue>(&frame_.slots[size_t(step.inputs[0])]);
    step.shapeDims = t ? t->dims() : Dims{-1};
  }
  step.foldedEpoch = plan_.shapeEpoch;
  step.folded.emplace();
  for (int slot : step.outputs) step.folded->push_back(slot >= 0 ? frame_.slots[size_t(slot)] : RunValue());
}

std::vector<RunValue> PlanRun::results() {
  std::vector<RunValue> out;
  for (int slot : plan_.outputSlots) {
    RunValue v = slot >= 0 ? plainLayout(frame_.slots[size_t(slot)]) : RunValue();
    host_.detachFromArena(v);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

Expected<std::vector<RunValue>> runPlan(const RunEnvironment& env, GraphPlan& plan, Frame& frame,
                                        bool useArena, int64_t arenaLimitBytes) {
  // Graph inputs that are also initializers keep their initializer unless the caller gave a value.
  for (auto& [slot, tensor] : plan.constants)
    if (std::holds_alternative<std::monostate>(frame.slots[size_t(slot)])) frame.slots[size_t(slot)] = tensor;
  ArenaState* arena = useArena ? &arenaFor(plan, frame) : nullptr;
  const bool recording = arena && !arena->planned;
  PlanRun run(env, plan, frame, arena, recording);
  return run.run(arenaLimitBytes);
}

}  // namespace onyx::exec
