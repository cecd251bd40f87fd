// The plan runner's profiling hooks (plan_profiling.h).
#include "exec/plan_profiling.h"

#include <string>

namespace onyx::exec {

namespace {

int64_t valueBytes(const RunValue& value) {
  if (auto* t = std::get_if<TensorValue>(&value)) return int64_t(t->byteSize());
  if (auto* s = std::get_if<SequenceValue>(&value)) {
    int64_t n = 0;
    for (const TensorValue& e : s->tensors) n += int64_t(e.byteSize());
    return n;
  }
  return 0;
}

// "dnnl", or "dnnl:winograd" when the kernel reports the algorithm it took, then the code that ran:
// "dnnl:winograd:jit_wino_4x3:avx512_core", "fast:avx2".
std::string profiledVariant(const PreparedNode& prepared) {
  std::string variant(prepared.variant());
  if (std::string_view algorithm = prepared.algorithm(); !algorithm.empty())
    variant += ":" + std::string(algorithm);
  if (std::string_view implementation = prepared.implementation(); !implementation.empty())
    variant += ":" + std::string(implementation);
  return variant;
}

ProfileEvent stepEvent(const Profiler& profiler, const GraphPlan& plan, const Step& step,
                       const std::vector<RunValue>& slots, const StepOutcome& outcome,
                       std::string_view hostBackend) {
  ProfileEvent e;
  e.startNs = outcome.startNs;
  e.durationNs = profiler.nowNs() - outcome.startNs;
  e.iteration = profiler.iteration();
  e.depth = plan.depth;
  e.thread = 0;
  e.backend = std::string(step.backend ? step.backend->name() : hostBackend);
  if (step.node) {
    e.node = step.node->id();
    e.name = step.node->name();
    e.opType = step.node->opType();
    e.variant = outcome.reused ? std::string("folded")
                               : profiledVariant(*step.prepared) + (outcome.fused ? step.fusedOps : "");
    if (!outcome.reused) e.implementation = std::string(step.prepared->implementation());
  } else {
    // Named after the value it moves and its size: "download 'logits' (4194304 bytes)".
    e.opType = "Transfer";
    e.variant = outcome.reused ? "folded" : "transfer";
    const onyx::Value* value = step.inputs.empty() ? nullptr : plan.slotValue[size_t(step.inputs[0])];
    const int64_t bytes = step.inputs.empty() ? 0 : valueBytes(slots[size_t(step.inputs[0])]);
    e.name = std::string(step.toHost ? "download '" : "upload '") + (value ? value->name() : "?") + "' (" +
             std::to_string(bytes) + " bytes)";
  }
  for (int slot : step.inputs)
    if (slot >= 0) e.bytesRead += valueBytes(slots[size_t(slot)]);
  for (int slot : step.outputs)
    if (slot >= 0) e.bytesWritten += valueBytes(slots[size_t(slot)]);
  e.flops = outcome.flops;
  e.threads = outcome.threads;
  return e;
}

// A node fused into the step: its time is in the step's event.
ProfileEvent fusedEvent(const Profiler& profiler, const GraphPlan& plan, const Step& step,
                        const Node& fusedNode, std::string_view hostBackend) {
  ProfileEvent f;
  f.startNs = profiler.nowNs();
  f.iteration = profiler.iteration();
  f.depth = plan.depth;
  f.backend = std::string(step.backend ? step.backend->name() : hostBackend);
  f.node = fusedNode.id();
  f.name = fusedNode.name();
  f.opType = fusedNode.opType();
  f.variant = "fused into " + step.node->describe();
  return f;
}

}  // namespace

ProfileEvent epilogueEvent(const Profiler& profiler, const EpilogueStep& ep, int64_t startNs,
                           const std::vector<const RunValue*>& inputs, const RunValue& output,
                           const KernelContext& context) {
  ProfileEvent e;
  e.startNs = startNs;
  e.durationNs = profiler.nowNs() - startNs;
  e.node = ep.graphNode->id();
  e.name = ep.graphNode->name();
  e.opType = ep.node->opType();
  e.variant = profiledVariant(*ep.prepared);
  e.implementation = std::string(ep.prepared->implementation());
  for (const RunValue* in : inputs) e.bytesRead += valueBytes(*in);
  e.bytesWritten = valueBytes(output);
  e.flops = ep.prepared->flops(context);
  return e;
}

void recordStep(Profiler& profiler, const GraphPlan& plan, const Step& step,
                const std::vector<RunValue>& slots, const StepOutcome& outcome,
                std::vector<ProfileEvent>& epilogueEvents, std::string_view hostBackend) {
  ProfileEvent e = stepEvent(profiler, plan, step, slots, outcome, hostBackend);
  for (const ProfileEvent& after : epilogueEvents) e.durationNs -= after.durationNs;
  profiler.record(std::move(e));
  for (ProfileEvent& after : epilogueEvents) {
    after.iteration = profiler.iteration();
    after.depth = plan.depth;
    after.backend = std::string(step.backend ? step.backend->name() : hostBackend);
    profiler.record(std::move(after));
  }
  for (const Node* transpose : step.transposedInputs)
    if (transpose) profiler.record(fusedEvent(profiler, plan, step, *transpose, hostBackend));
  for (const Node* concat : step.concatenatedInputs)
    if (concat) profiler.record(fusedEvent(profiler, plan, step, *concat, hostBackend));
  if (outcome.fused)
    for (size_t i = 0; i < step.epilogue.size(); ++i)  // one event per graph node (a fused call's body: one)
      if (i == 0 || step.epilogue[i].graphNode != step.epilogue[i - 1].graphNode)
        profiler.record(fusedEvent(profiler, plan, step, *step.epilogue[i].graphNode, hostBackend));
}

}  // namespace onyx::exec
