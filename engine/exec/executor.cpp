#include "exec/executor.h"

#include "exec/channels_last.h"
#include "exec/function_call.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <span>
#include <cstdlib>
#include <deque>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "exec/vulkan/vulkan_backend.h"

namespace onyx::exec {

namespace {
constexpr int kForever = INT_MAX;  // last use of graph outputs: they outlive the run

// Every value a body graph (and its nested bodies) reads from enclosing scopes.
void collectOuterRefs(const Graph& body, std::vector<const onyx::Value*>& out,
                      std::unordered_set<const onyx::Value*>& seen) {
  auto consider = [&](const onyx::Value* v) {
    if (!v || v->name().empty() || v->graph() == &body) return;
    if (seen.insert(v).second) out.push_back(v);
  };
  for (const Node* node : body.nodes()) {
    for (const onyx::Value* v : node->inputs()) consider(v);
    for (const Graph* nested : node->subgraphs()) {
      std::vector<const onyx::Value*> inner;
      std::unordered_set<const onyx::Value*> innerSeen;
      collectOuterRefs(*nested, inner, innerSeen);
      for (const onyx::Value* v : inner) consider(v);
    }
  }
  for (const onyx::Value* v : body.outputs()) consider(v);
}

std::vector<const void*> storageIds(const RunValue& value) {
  std::vector<const void*> ids;
  if (auto* t = std::get_if<TensorValue>(&value)) {
    if (t->storageId()) ids.push_back(t->storageId());
  } else if (auto* s = std::get_if<SequenceValue>(&value)) {
    for (const TensorValue& e : s->tensors)
      if (e.storageId()) ids.push_back(e.storageId());
  }
  return ids;
}

int64_t valueBytes(const RunValue& value) {
  if (auto* t = std::get_if<TensorValue>(&value)) return int64_t(t->byteSize());
  if (auto* s = std::get_if<SequenceValue>(&value)) {
    int64_t n = 0;
    for (const TensorValue& e : s->tensors) n += int64_t(e.byteSize());
    return n;
  }
  return 0;
}

// "dnnl", or "dnnl:winograd" when the kernel reports the algorithm it took.
std::string profiledVariant(const PreparedNode& prepared) {
  std::string variant(prepared.variant());
  if (std::string_view algorithm = prepared.algorithm(); !algorithm.empty())
    variant += ":" + std::string(algorithm);
  return variant;
}

// The default ONNX domain, under either of its names.
bool isOnnxDomain(const Node& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

}  // namespace

// How a step's outputs may be kept from one run for the next (ExecutorOptions::foldConstants).
enum class Fold {
  None,
  Constant,  // CPU, deterministic, reads only constants (initializers that are not graph inputs, such steps)
  // The same, reading values computed from tensor dims as well: exporters' shape arithmetic. Its kept
  // outputs stand while GraphPlan::shapeEpoch is the one they were computed in (Step::foldedEpoch).
  Shape,
  // A Shape or Size node: its kept output stands while its input has the dims it had (Step::shapeDims); new
  // dims start a new shape epoch.
  Source,
};

// A node fused into the step before it (see EpilogueOp). Its own kernel runs only when the producer's
// kernel cannot fuse it in a run (other types or shapes).
struct EpilogueStep {
  const Node* node = nullptr;
  int opset = 0;
  std::unique_ptr<PreparedNode> prepared;
  std::vector<int> inputs;  // frame slot; -1 absent; kChainValue - k: value k of the chain (0: the producer's)
};
constexpr int kChainValue = kEpilogueChain;

struct Step {
  const Node* node = nullptr;  // null: an inserted transfer
  int opset = 0;
  Backend* backend = nullptr;
  std::unique_ptr<PreparedNode> prepared;
  std::vector<int> inputs;    // slot per node input, -1 when omitted
  std::vector<int> outputs;   // slot per node output, -1 when omitted
  std::vector<int> captures;  // outer values the node's bodies read (kept alive until it ran)
  bool toHost = false;        // transfers: direction
  std::vector<EpilogueStep> epilogue;  // output 0 is then the value of the last epilogue node
  std::string fusedOps;                // "+Relu", for profiles
  // Per input: the Transpose folded into this step (the kernel reads its input through the permutation,
  // KernelContext::setTransposedInputs), or null. Empty when none is.
  std::vector<const Node*> transposedInputs;
  // Per input: the Concat folded into this step (KernelContext::setConcatenatedInputs), or null. Its parts
  // are `inputs` from partsBegin on, after the node's own, in order; the folded input's own slot is -1.
  std::vector<const Node*> concatenatedInputs;
  size_t partsBegin = SIZE_MAX;
  size_t ownInputs = SIZE_MAX;         // inputs past this many are epilogue operands
  // Per node input: 1 when its value is the same every run (an initializer no caller can override, or the
  // kept output of a constant-folded step), so kernels may pack it once (KernelContext::inputIsConstant).
  std::vector<uint8_t> constantInputs;
  bool channelsLastOut = false;        // output 0 may be channels-last: every reader takes it
  // Whether its outputs, computed once, are kept for the following runs (ONNX Runtime folds the constant
  // ones when it loads a model).
  Fold fold = Fold::None;
  std::optional<std::vector<RunValue>> folded;
  uint64_t foldedEpoch = 0;  // Fold::Shape
  Dims shapeDims;            // Fold::Source

  // The node input (for Kernel::acceptsChannelsLast) that inputs[i] holds or is a part of, or
  // kEpilogueOperands.
  size_t kernelInput(size_t i) const {
    if (i >= ownInputs) return kEpilogueOperands;
    if (i < partsBegin) return i;
    size_t part = i - partsBegin;
    for (size_t k = 0; k < concatenatedInputs.size(); ++k) {
      if (!concatenatedInputs[k]) continue;
      if (part < concatenatedInputs[k]->inputCount()) return k;
      part -= concatenatedInputs[k]->inputCount();
    }
    return kEpilogueOperands;
  }
};

// Arena bookkeeping for one binding of the input shapes.
struct ArenaState {
  bool planned = false;
  std::vector<BufferRequest> requests;
  std::vector<bool> escapes;                     // a graph output or alias of one: heap, never arena
  std::map<std::pair<int, int>, int> requestOf;  // (step, output) -> request
  std::unordered_map<const void*, int> requestOfStorage;
  MemoryPlan plan;
  std::shared_ptr<void> arena;
  std::unique_ptr<char[]> tags;  // one address per request: the storage id of its views
  int64_t heapFallbacks = 0;
  // Graph outputs live on the heap (the caller keeps them); a few blocks per output are kept and reused once
  // the caller has dropped them, so a loop that holds the last outputs while running again does not fault in
  // fresh pages every run (gpt2's 4 MiB logits: 1.4 ms a run).
  struct OutputBlock {
    std::shared_ptr<void> block;
    size_t bytes = 0;
  };
  std::map<int, std::vector<OutputBlock>> outputBlocks;  // per escaping request
};

class GraphPlan {
 public:
  const Graph* graph = nullptr;
  int depth = 0;
  std::vector<const onyx::Value*> slotValue;
  std::unordered_map<const onyx::Value*, int> slotOf;
  std::vector<std::pair<int, TensorValue>> constants;
  std::vector<bool> isConstant;
  std::vector<bool> isShapeDerived;  // output of a Fold::Source or Fold::Shape step
  uint64_t shapeEpoch = 0;
  std::vector<int> inputSlots;
  std::vector<int> outputSlots;
  std::vector<std::pair<const onyx::Value*, int>> captured;
  std::vector<Step> steps;
  std::vector<int> lastUse;
  std::map<std::vector<Dims>, ArenaState> arenas;
  ArenaState* lastArena = nullptr;
  int transfers = 0;
  // The main graph's slots between runs: constants and shape arithmetic stay in place, so the steps that
  // computed them are skipped instead of copying their kept outputs back every run.
  std::vector<RunValue> keptSlots;

  int addSlot(const onyx::Value* value) {
    int slot = int(slotValue.size());
    slotValue.push_back(value);
    if (value) slotOf[value] = slot;
    isConstant.push_back(false);
    isShapeDerived.push_back(false);
    return slot;
  }
  // A graph input's slot: an initializer there is a default the caller may override, never a constant.
  bool isInputSlot(int slot) const {
    return std::find(inputSlots.begin(), inputSlots.end(), slot) != inputSlots.end();
  }
};

struct Frame {
  const GraphPlan* plan;
  std::vector<RunValue> slots;
  const Frame* parent;
  const RunValue* lookup(const onyx::Value* v) const {
    auto it = plan->slotOf.find(v);
    if (it != plan->slotOf.end()) return &slots[size_t(it->second)];
    return parent ? parent->lookup(v) : nullptr;
  }
};

// Gives kernels their output memory and runs bodies for control flow.
class FrameHost final : public KernelHost {
 public:
  FrameHost(Executor& executor, GraphPlan& plan, Frame& frame, ArenaState* arena, bool recording)
      : executor_(executor), plan_(plan), frame_(frame), arena_(arena), recording_(recording) {}
  int step = 0;
  bool heapOnly = false;  // intermediates of an epilogue chain run node by node

  // A graph output's storage: a kept block the caller no longer holds, or a new one kept for later runs.
  TensorValue outputBlock(int request, DataType dtype, Dims dims, int64_t bytes) {
    constexpr size_t kBlocksPerOutput = 3;
    auto& blocks = arena_->outputBlocks[request];
    for (ArenaState::OutputBlock& b : blocks)
      if (b.block.use_count() == 1 && b.bytes >= size_t(bytes))
        return TensorValue::view(dtype, std::move(dims), b.block.get(), b.block);
    TensorValue t = TensorValue::allocate(dtype, std::move(dims));
    if (blocks.size() < kBlocksPerOutput)
      blocks.push_back({std::const_pointer_cast<void>(t.owner()), size_t(bytes)});
    return t;
  }

  Expected<TensorValue> allocateOutput(size_t index, DataType dtype, Dims dims) override {
    int64_t bytes = int64_t(elementCount(dims) * int64_t(elementBytes(dtype)));
    if (!arena_ || heapOnly || dtype == DataType::String) return TensorValue::allocate(dtype, std::move(dims));
    const Step& s = plan_.steps[size_t(step)];
    if (recording_) {
      TensorValue t = TensorValue::allocate(dtype, std::move(dims));
      int request = int(arena_->requests.size());
      BufferRequest r;
      r.bytes = bytes;
      r.firstStep = step;
      r.lastStep = step;
      const onyx::Value* value = index < s.outputs.size() && s.outputs[index] >= 0
                                     ? plan_.slotValue[size_t(s.outputs[index])]
                                     : s.node->output(index);
      r.label =
          s.node->describe() + " output " + std::to_string(index) + (value ? " '" + value->name() + "'" : "");
      for (auto [out, in] : s.prepared->inPlace()) {
        if (size_t(out) != index || size_t(in) >= s.inputs.size() || s.inputs[size_t(in)] < 0) continue;
        const auto* src = std::get_if<TensorValue>(&frame_.slots[size_t(s.inputs[size_t(in)])]);
        if (!src) continue;
        auto it = arena_->requestOfStorage.find(src->storageId());
        if (it == arena_->requestOfStorage.end()) continue;
        const BufferRequest& other = arena_->requests[size_t(it->second)];
        if (other.lastStep == step && other.bytes == bytes && !arena_->escapes[size_t(it->second)] &&
            !taken_.count(it->second)) {
          r.sharesWith = it->second;
          taken_.insert(it->second);
        }
      }
      arena_->requests.push_back(std::move(r));
      arena_->escapes.push_back(false);
      arena_->requestOf[{step, int(index)}] = request;
      arena_->requestOfStorage[t.storageId()] = request;
      return t;
    }
    auto it = arena_->requestOf.find({step, int(index)});
    if (it != arena_->requestOf.end() && arena_->escapes[size_t(it->second)])
      return outputBlock(it->second, dtype, std::move(dims), bytes);
    if (it != arena_->requestOf.end()) {
      int r = it->second;
      if (bytes <= arena_->requests[size_t(r)].bytes && arena_->arena) {
        auto* base = static_cast<std::byte*>(arena_->arena.get()) + arena_->plan.offsets[size_t(r)];
        std::shared_ptr<const void> owner(arena_->arena, &arena_->tags[size_t(r)]);
        return TensorValue::view(dtype, std::move(dims), base, std::move(owner));
      }
    }
    ++arena_->heapFallbacks;
    return TensorValue::allocate(dtype, std::move(dims));
  }

  Expected<std::vector<RunValue>> runSubgraph(const Graph& body, std::vector<RunValue> inputs) override;

  void newStep(int s) {
    step = s;
    taken_.clear();
  }

 private:
  Executor& executor_;
  GraphPlan& plan_;
  Frame& frame_;
  ArenaState* arena_;
  bool recording_;
  std::set<int> taken_;
};

namespace {

Fold foldKind(const GraphPlan& plan, const Step& step) {
  static const std::unordered_set<std::string> kRandom = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                          "RandomUniformLike", "Multinomial", "Bernoulli",
                                                          "Dropout"};
  const Node& node = *step.node;
  if (!step.backend->usesHostMemory() || !node.subgraphs().empty() || !step.captures.empty()) return Fold::None;
  const bool standard = isOnnxDomain(node);
  if (standard && kRandom.count(node.opType())) return Fold::None;
  if (!standard && node.domain() != "ai.onnx.ml") return Fold::None;
  bool derived = false;
  auto known = [&](int slot) {
    if (slot < 0) return true;
    if (plan.isInputSlot(slot)) return false;
    derived = derived || plan.isShapeDerived[size_t(slot)];
    return plan.isConstant[size_t(slot)] || plan.isShapeDerived[size_t(slot)];
  };
  bool all = std::all_of(step.inputs.begin(), step.inputs.end(), known);
  for (const EpilogueStep& ep : step.epilogue) all = all && std::all_of(ep.inputs.begin(), ep.inputs.end(), known);
  if (all) return derived ? Fold::Shape : Fold::Constant;
  const bool source = standard && (node.opType() == "Shape" || node.opType() == "Size");
  return source && step.epilogue.empty() && !step.inputs.empty() && step.inputs[0] >= 0 ? Fold::Source
                                                                                        : Fold::None;
}

// Whether a folded step's kept outputs are this run's: constants always; shape arithmetic while no Shape or
// Size step saw new dims; a Shape or Size step while its input has the dims it had.
bool keptOutputsHold(const GraphPlan& plan, const Step& step, const Frame& frame) {
  if (step.fold == Fold::Source) {
    const auto* t = std::get_if<TensorValue>(&frame.slots[size_t(step.inputs[0])]);
    return t && t->dims() == step.shapeDims;
  }
  return step.fold != Fold::Shape || step.foldedEpoch == plan.shapeEpoch;
}

Expected<std::vector<RunValue>> executePlan(Executor& executor, GraphPlan& plan, Frame& frame, bool useArena,
                                            Profiler* profiler, int64_t arenaLimit);

}  // namespace

Expected<std::vector<RunValue>> FrameHost::runSubgraph(const Graph& body, std::vector<RunValue> inputs) {
  auto it = executor_.bodies_.find(&body);
  if (it == executor_.bodies_.end()) return makeError("body graph was not planned", body.name());
  GraphPlan& child = *it->second;
  if (inputs.size() != child.inputSlots.size()) {
    return makeError("body graph '" + body.name() + "' takes " + std::to_string(child.inputSlots.size()) +
                         " inputs, given " + std::to_string(inputs.size()),
                     body.owner() ? body.owner()->describe() : body.name());
  }
  Frame childFrame{&child, std::vector<RunValue>(child.slotValue.size()), &frame_};
  for (size_t i = 0; i < inputs.size(); ++i)
    childFrame.slots[size_t(child.inputSlots[i])] = std::move(inputs[i]);
  for (auto& [value, slot] : child.captured) {
    const RunValue* outer = frame_.lookup(value);
    if (!outer)
      return makeError("body reads '" + value->name() + "', which is not computed", body.owner()->describe());
    childFrame.slots[size_t(slot)] = *outer;
  }
  Profiler* profiler = executor_.options_.profile ? &executor_.profiler_ : nullptr;
  return executePlan(executor_, child, childFrame, false, profiler, 0);
}

namespace {

// Runs a step's epilogue nodes one by one after its kernel declined to fuse them; `value` holds the
// producer's output 0 and receives the last node's output. Only the last output goes to the arena.
Expected<void> runEpilogue(const Step& step, const Frame& frame, RunValue& value, FrameHost& host,
                           ThreadPool& pool, Profiler* profiler, std::vector<ProfileEvent>& events) {
  std::vector<RunValue> chain;
  chain.push_back(std::move(value));
  const RunValue absent;
  for (size_t i = 0; i < step.epilogue.size(); ++i) {
    const EpilogueStep& ep = step.epilogue[i];
    std::vector<const RunValue*> inputs;
    std::vector<RunValue> plain;  // the node's kernel reads plain storage
    plain.reserve(ep.inputs.size());
    for (int slot : ep.inputs) {
      const RunValue& in = slot >= 0 ? frame.slots[size_t(slot)]
                           : slot == -1 ? absent : chain[size_t(kChainValue - slot)];
      plain.push_back(plainLayout(in));
      inputs.push_back(&plain.back());
    }
    std::vector<RunValue> outputs(1);
    host.heapOnly = i + 1 < step.epilogue.size();
    KernelContext context(*ep.node, ep.opset, inputs, outputs, host, pool);
    int64_t start = profiler ? profiler->nowNs() : 0;
    auto ran = ep.prepared->run(context);
    host.heapOnly = false;
    if (!ran) return ran.error();
    if (profiler) {
      ProfileEvent e;
      e.startNs = start;
      e.durationNs = profiler->nowNs() - start;
      e.node = ep.node->id();
      e.name = ep.node->name();
      e.opType = ep.node->opType();
      e.variant = profiledVariant(*ep.prepared);
      for (const RunValue* in : inputs) e.bytesRead += valueBytes(*in);
      e.bytesWritten = valueBytes(outputs[0]);
      e.flops = ep.prepared->flops(context);
      events.push_back(std::move(e));
    }
    chain.push_back(std::move(outputs[0]));
  }
  value = std::move(chain.back());
  return {};
}

Expected<std::vector<RunValue>> executePlan(Executor& executor, GraphPlan& plan, Frame& frame, bool useArena,
                                            Profiler* profiler, int64_t arenaLimit) {
  // Graph inputs that are also initializers keep their initializer unless the caller gave a value.
  for (auto& [slot, tensor] : plan.constants)
    if (std::holds_alternative<std::monostate>(frame.slots[size_t(slot)])) frame.slots[size_t(slot)] = tensor;

  ArenaState* arena = nullptr;
  bool recording = false;
  if (useArena) {
    std::vector<Dims> key;
    for (int slot : plan.inputSlots) {
      const RunValue& v = frame.slots[size_t(slot)];
      if (auto* t = std::get_if<TensorValue>(&v))
        key.push_back(t->dims());
      else
        key.push_back({-1});
    }
    if (plan.arenas.size() > 8 && !plan.arenas.count(key)) plan.arenas.clear();
    arena = &plan.arenas[key];
    recording = !arena->planned;
    if (recording) *arena = ArenaState();
    plan.lastArena = arena;
  }
  FrameHost host(executor, plan, frame, arena, recording);
  std::vector<const RunValue*> inputPtrs;
  std::vector<RunValue> outputs;
  std::vector<ProfileEvent> epilogueEvents;  // epilogue nodes run one by one
  std::vector<RunValue> converted;            // channels-last inputs in plain storage, for this step
  const RunValue absent;

  // Release what step s was the last to read (and its defined-but-unused outputs). Constants and shape
  // arithmetic stay for the next run.
  auto releaseAfter = [&](const Step& step, size_t s) {
    auto release = [&](int slot) {
      if (slot >= 0 && !plan.isConstant[size_t(slot)] && !plan.isShapeDerived[size_t(slot)] &&
          plan.lastUse[size_t(slot)] <= int(s))
        frame.slots[size_t(slot)] = RunValue();
    };
    for (int slot : step.inputs) release(slot);
    for (int slot : step.captures) release(slot);
    for (int slot : step.outputs) release(slot);
  };
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    Step& step = plan.steps[s];
    // A folded step whose outputs stand in the slots from the last run (the main graph keeps them) has
    // nothing to do; with a profiler it still reports itself.
    if (!profiler && step.folded && keptOutputsHold(plan, step, frame) &&
        std::all_of(step.outputs.begin(), step.outputs.end(), [&](int slot) {
          return slot < 0 || !std::holds_alternative<std::monostate>(frame.slots[size_t(slot)]);
        })) {
      releaseAfter(step, s);
      continue;
    }
    host.newStep(int(s));
    int64_t start = profiler ? profiler->nowNs() : 0;
    int64_t flops = 0;
    bool fused = false;
    bool reused = false;  // a folded step's kept outputs
    epilogueEvents.clear();
    bool deviceStep = step.backend && !step.backend->usesHostMemory();
    if (profiler && deviceStep) step.backend->beginProfiledStep(*profiler);
    if (!step.node) {  // transfer between backends
      const auto* t = std::get_if<TensorValue>(&frame.slots[size_t(step.inputs[0])]);
      if (t) {
        TensorValue plain = t->toPlainLayout();
        auto moved = step.toHost ? step.backend->toHost(plain) : step.backend->toDevice(plain);
        if (!moved) return moved.error();
        frame.slots[size_t(step.outputs[0])] = std::move(*moved);
      } else {
        frame.slots[size_t(step.outputs[0])] = frame.slots[size_t(step.inputs[0])];
      }
    } else if (step.folded && keptOutputsHold(plan, step, frame)) {
      for (size_t i = 0; i < step.outputs.size(); ++i)
        if (step.outputs[i] >= 0) frame.slots[size_t(step.outputs[i])] = (*step.folded)[i];
      reused = true;
    } else {
      inputPtrs.clear();
      for (int slot : step.inputs) inputPtrs.push_back(slot >= 0 ? &frame.slots[size_t(slot)] : &absent);
      outputs.assign(step.outputs.size(), RunValue());
      // Channels-last inputs: viewed as plain (N, spatial..., C) tensors by a layout-transparent node whose
      // output may stay channels-last, converted for kernels that do not take them.
      Dims channelsLastDims;
      std::optional<std::vector<RunValue>> views;
      if (step.channelsLastOut && step.epilogue.empty() && isLayoutTransparent(*step.node))
        views = channelsLastViews(inputPtrs, channelsLastDims);
      converted.clear();
      converted.reserve(inputPtrs.size());
      for (size_t i = 0; i < inputPtrs.size(); ++i) {
        if (views) {
          inputPtrs[i] = &(*views)[i];
        } else if (const auto* t = std::get_if<TensorValue>(inputPtrs[i]);
                   t && t->channelsLast() && !step.prepared->acceptsChannelsLast(step.kernelInput(i))) {
          converted.emplace_back(t->toPlainLayout());
          inputPtrs[i] = &converted.back();
        }
      }
      std::span<const RunValue* const> all(inputPtrs);
      size_t own = std::min(step.ownInputs, all.size()), nodeInputs = std::min(step.partsBegin, own);
      KernelContext context(*step.node, step.opset, all.first(nodeInputs), outputs, host, executor.pool());
      context.setEpilogueOperands(all.subspan(own));
      context.setTransposedInputs(step.transposedInputs);
      context.setConstantInputs(step.constantInputs);
      for (size_t i = 0; i < step.transposedInputs.size(); ++i)
        if (auto perm = context.inputPermutation(i); !perm) return perm.error();
      context.setConcatenatedInputs(step.concatenatedInputs, all.subspan(nodeInputs, own - nodeInputs));
      if (auto joined = context.checkConcatenatedInputs(); !joined) return joined.error();
      context.setOutputMayBeChannelsLast(step.channelsLastOut);
      fused = !step.epilogue.empty() && step.prepared->canFuseEpilogue(context);
      context.setFusingEpilogue(fused);
      const bool kept = step.fold != Fold::None;
      host.heapOnly = (!step.epilogue.empty() && !fused) || kept;  // kept values: not arena
      auto ran = step.prepared->run(context);
      host.heapOnly = false;
      if (!ran) return ran.error();
      if (views && !adoptChannelsLast(outputs[0], channelsLastDims))
        return context.error("computed an output of unexpected dims on channels-last inputs");
      if (!step.epilogue.empty() && !fused) {
        auto chained = runEpilogue(step, frame, outputs[0], host, executor.pool(), profiler, epilogueEvents);
        if (!chained) return chained.error();
      }
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (step.outputs[i] >= 0 && std::holds_alternative<std::monostate>(outputs[i])) {
          return context.error("produced no value for output " + std::to_string(i));
        }
      }
      if (profiler) flops = step.prepared->flops(context);
      for (size_t i = 0; i < outputs.size(); ++i) {
        int slot = step.outputs[i];
        if (slot < 0) continue;
        if (arena) {
          int last = plan.lastUse[size_t(slot)];
          for (const void* id : storageIds(outputs[i])) {
            auto it = arena->requestOfStorage.find(id);
            if (it == arena->requestOfStorage.end()) continue;
            size_t r = size_t(it->second);
            if (recording) {
              if (last == kForever)
                arena->escapes[r] = true;
              else
                arena->requests[r].lastStep = std::max(arena->requests[r].lastStep, last);
            } else if (last == kForever || arena->requests[r].lastStep < last) {
              // An alias the first run did not show (data-dependent): copy out of the arena.
              if (auto* t = std::get_if<TensorValue>(&outputs[i]))
                *t = t->clone();
              else if (auto* q = std::get_if<SequenceValue>(&outputs[i]))
                for (TensorValue& e : q->tensors) e = e.clone();
              ++arena->heapFallbacks;
              break;
            }
          }
        }
        frame.slots[size_t(slot)] = std::move(outputs[i]);
      }
      if (kept) {
        if (step.fold == Fold::Source) {
          if (step.folded) ++plan.shapeEpoch;  // the dims changed: what was computed from them is stale
          const auto* t = std::get_if<TensorValue>(&frame.slots[size_t(step.inputs[0])]);
          step.shapeDims = t ? t->dims() : Dims{-1};
        }
        step.foldedEpoch = plan.shapeEpoch;
        step.folded.emplace();
        for (int slot : step.outputs) step.folded->push_back(slot >= 0 ? frame.slots[size_t(slot)] : RunValue());
      }
    }
    if (profiler) {
      ProfileEvent e;
      e.startNs = start;
      e.durationNs = profiler->nowNs() - start;
      e.iteration = profiler->iteration();
      e.depth = plan.depth;
      e.thread = 0;
      e.backend = std::string(step.backend ? step.backend->name() : "cpu");
      if (step.node) {
        e.node = step.node->id();
        e.name = step.node->name();
        e.opType = step.node->opType();
        e.variant = reused ? std::string("folded") : profiledVariant(*step.prepared) + (fused ? step.fusedOps : "");
      } else {
        e.opType = "Transfer";
        e.variant = "transfer";
      }
      for (int slot : step.inputs)
        if (slot >= 0) e.bytesRead += valueBytes(frame.slots[size_t(slot)]);
      for (int slot : step.outputs)
        if (slot >= 0) e.bytesWritten += valueBytes(frame.slots[size_t(slot)]);
      e.flops = flops;
      for (const ProfileEvent& after : epilogueEvents) e.durationNs -= after.durationNs;
      profiler->record(std::move(e));
      for (ProfileEvent& after : epilogueEvents) {
        after.iteration = profiler->iteration();
        after.depth = plan.depth;
        after.backend = "cpu";
        profiler->record(std::move(after));
      }
      auto recordFused = [&](const Node& fusedNode) {  // its time is in the step's event
        ProfileEvent f;
        f.startNs = profiler->nowNs();
        f.iteration = profiler->iteration();
        f.depth = plan.depth;
        f.backend = "cpu";
        f.node = fusedNode.id();
        f.name = fusedNode.name();
        f.opType = fusedNode.opType();
        f.variant = "fused into " + step.node->describe();
        profiler->record(std::move(f));
      };
      for (const Node* transpose : step.transposedInputs)
        if (transpose) recordFused(*transpose);
      for (const Node* concat : step.concatenatedInputs)
        if (concat) recordFused(*concat);
      for (const EpilogueStep& fusedNode : step.epilogue)
        if (fused) recordFused(*fusedNode.node);
      if (deviceStep) step.backend->endProfiledStep(*profiler, profiler->events().size() - 1);
    }
    releaseAfter(step, s);
  }

  std::vector<RunValue> results;
  for (int slot : plan.outputSlots) {
    RunValue v = slot >= 0 ? plainLayout(frame.slots[size_t(slot)]) : RunValue();
    if (arena && !recording) {
      for (const void* id : storageIds(v)) {
        if (arena->requestOfStorage.count(id)) {
          if (auto* t = std::get_if<TensorValue>(&v))
            *t = t->clone();
          else if (auto* q = std::get_if<SequenceValue>(&v))
            for (TensorValue& e : q->tensors) e = e.clone();
          break;
        }
      }
    }
    results.push_back(std::move(v));
  }

  if (recording) {
    for (size_t r = 0; r < arena->requests.size(); ++r) {
      if (arena->escapes[r]) arena->requests[r].bytes = 0;  // kept in the list so indices stay valid
    }
    arena->plan = planMemory(arena->requests);
    if (arenaLimit > 0 && arena->plan.arenaBytes > arenaLimit) {
      std::string biggest;
      if (!arena->plan.aliveAtPeak.empty())
        biggest = arena->requests[size_t(arena->plan.aliveAtPeak[0])].label;
      const Step& peak = plan.steps[size_t(std::max(0, arena->plan.peakStep))];
      plan.arenas.clear();
      plan.lastArena = nullptr;
      return makeError("the run needs an arena of " + std::to_string(arena->plan.arenaBytes) +
                           " bytes, over the limit of " + std::to_string(arenaLimit) +
                           "; the largest tensor alive at the peak is " + biggest +
                           ". Raise the limit or use smaller inputs",
                       peak.node ? peak.node->describe() : "transfer");
    }
    arena->arena = std::shared_ptr<void>(
        std::aligned_alloc(64, size_t(std::max<int64_t>(arena->plan.arenaBytes, 64) + 63) / 64 * 64),
        [](void* p) { std::free(p); });
    arena->tags = std::make_unique<char[]>(arena->requests.size() + 1);
    arena->requestOfStorage.clear();
    for (size_t r = 0; r < arena->requests.size(); ++r) arena->requestOfStorage[&arena->tags[r]] = int(r);
    arena->planned = true;
  }
  return results;
}

}  // namespace

Executor::Executor(const Model& model, ExecutorOptions options)
    : model_(model), options_(std::move(options)), pool_(options_.threads) {}

Executor::~Executor() = default;

namespace {

// Which steps may leave output 0 channels-last: kernels that write it (oneDNN's Conv) or layout-transparent
// nodes, whose readers all take it (a Conv's data input or residual, another such node). Readers come later
// in the schedule, so one backward sweep decides every step. `pinned` values (graph outputs, values read by
// bodies: everything read outside this graph's steps) stay plain.
void markChannelsLastOutputs(GraphPlan& plan, const std::unordered_set<const onyx::Value*>& pinned) {
  std::vector<std::vector<std::pair<size_t, size_t>>> readers(plan.slotValue.size());  // (step, input)
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (size_t i = 0; i < plan.steps[s].inputs.size(); ++i)
      if (int slot = plan.steps[s].inputs[i]; slot >= 0) readers[size_t(slot)].push_back({s, i});
  auto transparent = [](const Step& step) {
    return step.node && step.epilogue.empty() && step.backend->usesHostMemory() && isLayoutTransparent(*step.node);
  };
  for (size_t s = plan.steps.size(); s-- > 0;) {
    Step& step = plan.steps[s];
    if (!step.node || step.outputs.empty() || step.outputs[0] < 0) continue;
    if (!step.prepared->producesChannelsLast() && !transparent(step)) continue;
    int slot = step.outputs[0];
    const onyx::Value* value = plan.slotValue[size_t(slot)];
    if (!value || pinned.count(value) || readers[size_t(slot)].empty()) continue;
    bool allTake = true;
    for (auto [r, input] : readers[size_t(slot)]) {
      const Step& reader = plan.steps[r];
      size_t asked = reader.kernelInput(input);
      bool takes = reader.node && ((reader.prepared->acceptsChannelsLast(asked) &&
                                    (!reader.prepared->readsChannelsLastOnlyToKeepIt() || reader.channelsLastOut)) ||
                                   (transparent(reader) && reader.channelsLastOut));
      allTake = allTake && takes;
    }
    step.channelsLastOut = allTake;
  }
}

struct Builder {
  Executor& executor;
  const Model& model;
  std::vector<Backend*> backends;  // preference order, CPU last
  std::map<const Graph*, std::unique_ptr<GraphPlan>>& bodies;
  // While planning a function body: the function's opset imports, which its nodes' versions come from.
  const std::vector<OpsetImport>* imports = nullptr;
  bool fuseEpilogues = true;
  bool channelsLast = true;
  bool foldConstants = true;

  int opsetFor(const std::string& domain) const {
    if (imports) {
      for (const OpsetImport& o : *imports) {
        bool standard = (o.domain.empty() || o.domain == "ai.onnx") && (domain.empty() || domain == "ai.onnx");
        if (o.domain == domain || standard) return int(o.version);
      }
    }
    return int(model.opsetVersion(domain));
  }

  // A node naming a model-local function that no backend runs natively: the function's body is planned once
  // (like an If/Loop body) and the call runs it, or its fused element-wise kernel.
  Expected<std::unique_ptr<PreparedNode>> prepareCall(const Node& node, const Function& function, int depth) {
    constexpr int kMaxFunctionDepth = 32;
    if (depth > kMaxFunctionDepth)
      return makeError("function calls nest too deep (does a function call itself?)", node.describe());
    if (function.body && !bodies.count(function.body.get())) {
      const std::vector<OpsetImport>* saved = imports;
      imports = function.opsetImports.empty() ? nullptr : &function.opsetImports;
      bodies[function.body.get()] = nullptr;  // planned (or being planned): not again
      auto bodyPlan = build(*function.body, depth + 1);
      imports = saved;
      if (!bodyPlan) {
        bodies.erase(function.body.get());
        return bodyPlan.error();
      }
      bodies[function.body.get()] = std::move(*bodyPlan);
    }
    return prepareFunctionCall(node, function);
  }

  Expected<std::unique_ptr<GraphPlan>> build(const Graph& graph, int depth) {
    auto plan = std::make_unique<GraphPlan>();
    plan->graph = &graph;
    plan->depth = depth;
    for (const onyx::Value* v : graph.inputs()) plan->inputSlots.push_back(plan->addSlot(v));
    for (const onyx::Value* v : graph.initializers()) {
      int slot = plan->slotOf.count(v) ? plan->slotOf[v] : plan->addSlot(v);
      plan->constants.push_back({slot, TensorValue::fromConstant(*v->initializer())});
      plan->isConstant[size_t(slot)] = true;
    }
    // Topological order (Kahn), stable with respect to the file order.
    std::vector<const Node*> nodes(graph.nodes().begin(), graph.nodes().end());
    std::unordered_map<const Node*, std::vector<const onyx::Value*>> outerRefs;
    for (const Node* node : nodes) {
      std::vector<const onyx::Value*> refs;
      std::unordered_set<const onyx::Value*> seen;
      for (const Graph* body : node->subgraphs()) collectOuterRefs(*body, refs, seen);
      outerRefs[node] = std::move(refs);
    }
    std::unordered_map<const Node*, int> pending;
    std::unordered_map<const Node*, std::vector<const Node*>> consumers;
    for (const Node* node : nodes) {
      std::unordered_set<const Node*> deps;
      auto depend = [&](const onyx::Value* v) {
        if (v && v->producer() && v->producer()->graph() == &graph && v->producer() != node)
          deps.insert(v->producer());
      };
      for (const onyx::Value* v : node->inputs()) depend(v);
      for (const onyx::Value* v : outerRefs[node]) depend(v);
      pending[node] = int(deps.size());
      for (const Node* d : deps) consumers[d].push_back(node);
    }
    std::deque<const Node*> ready;
    for (const Node* node : nodes)
      if (pending[node] == 0) ready.push_back(node);
    std::vector<const Node*> order;
    while (!ready.empty()) {
      const Node* node = ready.front();
      ready.pop_front();
      order.push_back(node);
      for (const Node* c : consumers[node])
        if (--pending[c] == 0) ready.push_back(c);
    }
    if (order.size() != nodes.size()) {
      for (const Node* node : nodes)
        if (pending[node] > 0) return makeError("the graph has a cycle through this node", node->describe());
    }

    std::vector<Backend*> location;  // per slot: backend holding it, null for host
    auto slotFor = [&](const onyx::Value* v) -> int {
      auto it = plan->slotOf.find(v);
      if (it != plan->slotOf.end()) return it->second;
      if (v->graph() != &graph) {  // from an enclosing scope
        int slot = plan->addSlot(v);
        plan->captured.push_back({v, slot});
        return slot;
      }
      return -1;
    };
    std::map<std::pair<int, Backend*>, int> transferred;
    auto placeOn = [&](int slot, Backend* target) -> int {
      location.resize(plan->slotValue.size(), nullptr);
      Backend* where = location[size_t(slot)];
      Backend* want = target && !target->usesHostMemory() ? target : nullptr;
      if (where == want) return slot;
      auto key = std::make_pair(slot, want);
      if (auto it = transferred.find(key); it != transferred.end()) return it->second;
      Step t;
      t.backend = want ? want : where;
      t.toHost = want == nullptr;
      t.inputs = {slot};
      int temp = plan->addSlot(nullptr);
      location.resize(plan->slotValue.size(), nullptr);
      location[size_t(temp)] = want;
      t.outputs = {temp};
      plan->steps.push_back(std::move(t));
      plan->transfers++;
      transferred[key] = temp;
      return temp;
    };

    std::unordered_set<const onyx::Value*> pinned;  // must be materialized: graph outputs, read by bodies
    for (const onyx::Value* v : graph.outputs()) pinned.insert(v);
    for (const auto& [n, refs] : outerRefs) pinned.insert(refs.begin(), refs.end());
    std::unordered_set<const Node*> absorbed;
    auto onlyUser = [&](const onyx::Value* v) -> const Node* {
      if (!v || v->name().empty() || pinned.count(v) || v->uses().size() != 1) return nullptr;
      const Node* user = v->uses()[0].node;
      return user && user->graph() == &graph && user->outputCount() == 1 && user->subgraphs().empty() ? user
                                                                                                    : nullptr;
    };
    // Whether the backend that will run `node` computes on host memory, where a reader can take its input
    // producer's operands as they lie.
    auto runsOnHost = [&](const Node& node) {
      for (Backend* backend : backends)
        if (backend->supports(node, opsetFor(node.domain()))) return backend->usesHostMemory();
      return false;
    };
    // Exporters write Clip bounds and scalars as Constant nodes as often as initializers; both are known now.
    auto constantOf = [](const onyx::Value* v) -> const onyx::Tensor* {
      if (!v) return nullptr;
      if (v->initializer()) return v->initializer();
      const Node* producer = v->producer();
      if (!producer || producer->opType() != "Constant" || !producer->domain().empty()) return nullptr;
      const Attribute* value = producer->attribute("value");
      return value ? value->getTensor() : nullptr;
    };
    // Transposes read only by a MatMul on the CPU: the MatMul reads the Transpose's input through the
    // permutation (strided operands; BERT's head split and K^T), so the transposed copy is never written.
    std::unordered_map<const Node*, std::vector<const Node*>> transposedInputsOf;
    for (const Node* node : fuseEpilogues ? order : std::vector<const Node*>{}) {
      if (node->opType() != "Transpose" || !isOnnxDomain(*node) || node->inputCount() < 1 ||
          node->outputCount() != 1)
        continue;
      const onyx::Value* source = node->input(0);
      if (!source || source->name().empty() || constantOf(source)) continue;  // constant: folded once instead
      const Node* user = onlyUser(node->output(0));
      if (!user || user->opType() != "MatMul" || !isOnnxDomain(*user)) continue;
      if (!runsOnHost(*user)) continue;
      std::vector<const Node*>& transposed = transposedInputsOf[user];
      transposed.resize(user->inputCount(), nullptr);
      for (size_t i = 0; i < user->inputCount(); ++i)
        if (user->input(i) == node->output(0)) transposed[i] = node;
      absorbed.insert(node);
    }
    // Concats along channels read only by a Conv with one group or by a 2-D pooling, on the CPU: the reader
    // takes the parts where they lie (the Conv runs once per part on its slice of the weights, oneDNN summing
    // into the output; the pooling writes each part's channel range), so the joined copy is never written.
    // SqueezeNet's fire modules end in such Concats.
    std::unordered_map<const Node*, std::vector<const Node*>> concatenatedInputsOf;
    for (const Node* node : fuseEpilogues ? order : std::vector<const Node*>{}) {
      if (node->opType() != "Concat" || !isOnnxDomain(*node) || node->attrInt("axis", 0) != 1 ||
          node->inputCount() < 2 || node->outputCount() != 1)
        continue;
      bool named = true;
      for (const onyx::Value* part : node->inputs()) named = named && part && !part->name().empty();
      const Node* user = named ? onlyUser(node->output(0)) : nullptr;
      if (!user || !isOnnxDomain(*user) || user->inputCount() < 1 || user->input(0) != node->output(0)) continue;
      const std::string& op = user->opType();
      const bool pool2d = (op == "MaxPool" || op == "AveragePool") && user->attrInts("kernel_shape") &&
                          user->attrInts("kernel_shape")->size() == 2;
      if (!(op == "Conv" && user->attrInt("group", 1) == 1) && !pool2d) continue;
      if (!runsOnHost(*user)) continue;
      std::vector<const Node*>& concatenated = concatenatedInputsOf[user];
      concatenated.assign(user->inputCount(), nullptr);
      concatenated[0] = node;
      absorbed.insert(node);
    }
    // The element-wise nodes after `step` that its kernel agrees to compute in its output pass. Returns the
    // value the step's output 0 then holds.
    auto planEpilogue = [&](Step& step, const Node& node) -> Expected<const onyx::Value*> {
      const onyx::Value* last = node.output(0);
      std::vector<EpilogueOp> ops;
      std::vector<const onyx::Value*> chain = {last};
      std::vector<int> extraSlots;  // operands appended to the step's inputs
      while (last) {
        std::vector<const Node*> group;
        if (const Node* user = onlyUser(last)) {
          group = {user};
        } else if (last->uses().size() == 2 && !pinned.count(last)) {  // SiLU: x * Sigmoid(x)
          const Node* a = last->uses()[0].node;
          const Node* b = last->uses()[1].node;
          if (a && b && b->opType() == "Sigmoid") std::swap(a, b);
          if (a && b && a->opType() == "Sigmoid" && b->opType() == "Mul" && onlyUser(a->output(0)) == b)
            group = {a, b};
          // GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt(2))) in five nodes.
          if (a && b && b->opType() == "Div") std::swap(a, b);
          if (group.empty() && a && b && a->opType() == "Div" && b->opType() == "Mul") {
            const Node* erf = onlyUser(a->output(0));
            const Node* plusOne = erf && erf->opType() == "Erf" ? onlyUser(erf->output(0)) : nullptr;
            const Node* times = plusOne && plusOne->opType() == "Add" ? onlyUser(plusOne->output(0)) : nullptr;
            const Node* half = times == b ? onlyUser(b->output(0)) : nullptr;
            if (half && half->opType() == "Mul") group = {a, erf, plusOne, b, half};
          }
        }
        if (group.empty()) break;
        std::vector<EpilogueOp> tentative = ops;
        std::vector<const onyx::Value*> tentativeChain = chain;
        std::vector<int> tentativeExtra = extraSlots;
        bool usable = true;
        for (const Node* member : group) {
          EpilogueOp op;
          op.node = member;
          op.opset = opsetFor(member->domain());
          for (const onyx::Value* in : member->inputs()) {
            const onyx::Tensor* constant = constantOf(in);
            op.constants.push_back(constant);
            auto at = std::find(tentativeChain.begin(), tentativeChain.end(), in);
            if (!in || in->name().empty() || constant) {
              op.inputs.push_back(-1);
            } else if (at != tentativeChain.end()) {
              op.inputs.push_back(kChainValue - int(at - tentativeChain.begin()));
            } else {
              int slot = slotFor(in);
              if (slot < 0) {  // computed later in the schedule: cannot be read at the producer's step
                usable = false;
                break;
              }
              op.inputs.push_back(int(tentativeExtra.size()));
              tentativeExtra.push_back(slot);
            }
          }
          tentativeChain.push_back(member->output(0));
          tentative.push_back(std::move(op));
        }
        if (!usable || !step.prepared->setEpilogue(tentative)) break;
        ops = std::move(tentative);
        chain = std::move(tentativeChain);
        extraSlots = std::move(tentativeExtra);
        last = chain.back();
      }
      if (ops.empty()) return node.output(0);
      Backend* cpu = backends.back();
      for (const EpilogueOp& op : ops) {
        EpilogueStep ep;
        ep.node = op.node;
        ep.opset = op.opset;
        auto prepared = cpu->prepare(*op.node, op.opset, NodeShapes{}, op.constants);
        if (!prepared) return prepared.error();
        ep.prepared = std::move(*prepared);
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          const onyx::Value* in = op.node->input(i);
          int ref = op.inputs[i];
          ep.inputs.push_back(ref <= kChainValue ? ref
                              : ref >= 0         ? extraSlots[size_t(ref)]
                              : in && !in->name().empty() ? slotFor(in)
                                                          : -1);
        }
        step.fusedOps += "+" + op.node->opType();
        step.epilogue.push_back(std::move(ep));
        absorbed.insert(op.node);
      }
      step.ownInputs = step.inputs.size();
      for (int slot : extraSlots) step.inputs.push_back(placeOn(slot, step.backend));
      return last;
    };

    for (const Node* node : order) {
      if (absorbed.count(node)) continue;
      Step step;
      step.node = node;
      step.opset = opsetFor(node->domain());
      if (step.opset == 0 && isOnnxDomain(*node)) step.opset = 1;
      std::vector<const onyx::Tensor*> constants;
      if (auto it = transposedInputsOf.find(node); it != transposedInputsOf.end())
        step.transposedInputs = it->second;
      if (auto it = concatenatedInputsOf.find(node); it != concatenatedInputsOf.end())
        step.concatenatedInputs = it->second;
      for (size_t i = 0; i < node->inputCount(); ++i) {
        const onyx::Value* v = node->input(i);
        if (i < step.transposedInputs.size() && step.transposedInputs[i]) v = step.transposedInputs[i]->input(0);
        const bool concatenated = i < step.concatenatedInputs.size() && step.concatenatedInputs[i];
        if (!v || v->name().empty() || concatenated) {
          step.inputs.push_back(-1);
          constants.push_back(nullptr);
          continue;
        }
        int slot = slotFor(v);
        if (slot < 0) {
          return makeError(
              "input '" + v->name() + "' is not produced by any node, graph input or initializer",
              node->describe());
        }
        step.inputs.push_back(slot);
        constants.push_back(plan->isInputSlot(slot) ? nullptr : v->initializer());
      }
      if (!step.concatenatedInputs.empty()) {
        step.partsBegin = step.inputs.size();
        for (size_t i = 0; i < step.concatenatedInputs.size(); ++i) {
          if (!step.concatenatedInputs[i]) continue;
          for (const onyx::Value* part : step.concatenatedInputs[i]->inputs()) {
            int slot = slotFor(part);
            if (slot < 0)
              return makeError("input '" + part->name() + "' is not produced by any node, graph input or initializer",
                               step.concatenatedInputs[i]->describe());
            step.inputs.push_back(slot);
          }
        }
      }
      for (const onyx::Value* v : outerRefs[node]) {
        int slot = slotFor(v);
        if (slot >= 0) step.captures.push_back(slot);
      }
      for (const Graph* body : node->subgraphs()) {
        auto bodyPlan = build(*body, depth + 1);
        if (!bodyPlan) return bodyPlan.error();
        bodies[body] = std::move(*bodyPlan);
      }
      // First backend that supports and prepares the node; the CPU backend is last.
      Error lastError = makeError("no backend supports " + node->opType() + " at opset " +
                                      std::to_string(step.opset) + "; the op is not supported yet",
                                  node->describe());
      NodeShapes shapes;
      const Function* function = model.findFunction(node->domain(), node->opType(), node->overload());
      bool native = false;
      for (Backend* backend : backends) native = native || (function && backend->supports(*node, step.opset));
      if (function && !native) {
        auto prepared = prepareCall(*node, *function, depth);
        if (!prepared) return prepared.error();
        step.backend = backends.back();
        step.prepared = std::move(*prepared);
      }
      for (Backend* backend : backends) {
        if (step.prepared) break;
        if (!backend->supports(*node, step.opset)) continue;
        auto prepared = backend->prepare(*node, step.opset, shapes, constants);
        if (!prepared) {
          lastError = prepared.error();
          continue;
        }
        step.backend = backend;
        step.prepared = std::move(*prepared);
        break;
      }
      if (!step.prepared) return lastError;
      const std::vector<int>& hostInputs = step.prepared->hostInputs();
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        int& slot = step.inputs[i];
        bool onHost = std::find(hostInputs.begin(), hostInputs.end(), int(i)) != hostInputs.end();
        if (slot >= 0) slot = placeOn(slot, onHost ? nullptr : step.backend);
      }
      for (size_t i = 0; i < std::min(step.inputs.size(), step.partsBegin); ++i) {
        const int slot = step.inputs[i];
        const bool constant = slot >= 0 && plan->isConstant[size_t(slot)] && !plan->isInputSlot(slot);
        step.constantInputs.push_back(constant);
      }
      const onyx::Value* fusedOutput = nullptr;
      if (fuseEpilogues && step.backend->usesHostMemory() && node->outputCount() > 0 && node->output(0)) {
        auto planned = planEpilogue(step, *node);
        if (!planned) return planned.error();
        fusedOutput = *planned;
      }
      for (size_t i = 0; i < node->outputCount(); ++i) {
        const onyx::Value* v = i == 0 && fusedOutput ? fusedOutput : node->output(i);
        step.outputs.push_back(v && !v->name().empty() ? plan->addSlot(v) : -1);
      }
      location.resize(plan->slotValue.size(), nullptr);
      for (int slot : step.outputs)
        if (slot >= 0) location[size_t(slot)] = step.backend->usesHostMemory() ? nullptr : step.backend;
      step.fold = foldConstants ? foldKind(*plan, step) : Fold::None;
      for (int slot : step.outputs) {
        if (slot < 0) continue;
        plan->isConstant[size_t(slot)] = step.fold == Fold::Constant;
        plan->isShapeDerived[size_t(slot)] = step.fold == Fold::Shape || step.fold == Fold::Source;
      }
      plan->steps.push_back(std::move(step));
    }
    for (const onyx::Value* v : graph.outputs()) {
      int slot = v ? slotFor(v) : -1;
      if (v && slot < 0) return makeError("graph output '" + v->name() + "' is never computed", graph.name());
      plan->outputSlots.push_back(slot >= 0 ? placeOn(slot, nullptr) : -1);
    }

    if (channelsLast) markChannelsLastOutputs(*plan, pinned);

    // Last reader of each slot.
    plan->lastUse.assign(plan->slotValue.size(), -1);
    for (size_t s = 0; s < plan->steps.size(); ++s) {
      const Step& step = plan->steps[s];
      for (int slot : step.inputs)
        if (slot >= 0) plan->lastUse[size_t(slot)] = int(s);
      for (int slot : step.captures) plan->lastUse[size_t(slot)] = int(s);
      for (const EpilogueStep& ep : step.epilogue)  // constants the absorbed nodes read when run one by one
        for (int slot : ep.inputs)
          if (slot >= 0) plan->lastUse[size_t(slot)] = std::max(plan->lastUse[size_t(slot)], int(s));
      for (int slot : step.outputs)
        if (slot >= 0 && plan->lastUse[size_t(slot)] < int(s)) plan->lastUse[size_t(slot)] = int(s);
    }
    for (int slot : plan->outputSlots)
      if (slot >= 0) plan->lastUse[size_t(slot)] = kForever;
    for (int slot : plan->inputSlots) plan->lastUse[size_t(slot)] = kForever;  // owned by the caller
    return plan;
  }
};

}  // namespace

Expected<std::unique_ptr<Executor>> Executor::create(const Model& model, ExecutorOptions options,
                                                     std::vector<std::unique_ptr<Backend>> extraBackends) {
  std::unique_ptr<Executor> executor(new Executor(model, std::move(options)));
  executor->backends_ = std::move(extraBackends);
  auto built = executor->build();
  if (!built) return built.error();
  return executor;
}

Expected<void> Executor::build() {
  for (const std::string& name : options_.backends) {
    if (name == "cpu") continue;
    bool found = false;
    for (const auto& backend : backends_) found = found || backend->name() == name;
    if (!found && name == "vulkan") {
      auto vulkan = vulkan::makeVulkanBackend(model_, options_.device);
      if (!vulkan) return vulkan.error();
      backends_.push_back(std::move(*vulkan));
      found = true;
    }
    if (!found) {
      return makeError("backend '" + name + "' is not available in this build; use --backend cpu",
                       "executor");
    }
  }
  backends_.push_back(std::make_unique<CpuBackend>(pool_, options_.kernelVariant));
  std::vector<Backend*> order;
  for (const std::string& name : options_.backends)
    for (const auto& backend : backends_)
      if (backend->name() == name && std::find(order.begin(), order.end(), backend.get()) == order.end())
        order.push_back(backend.get());
  if (std::find(order.begin(), order.end(), backends_.back().get()) == order.end())
    order.push_back(backends_.back().get());
  Builder builder{*this, model_, order, bodies_, nullptr, options_.fuseEpilogues, options_.channelsLast,
                  options_.foldConstants};
  auto plan = builder.build(model_.graph(), 0);
  if (!plan) return plan.error();
  main_ = std::move(*plan);
  return {};
}

Expected<void> Executor::validateInputs(const NamedValues& inputs) {
  bindings_.clear();
  const Graph& graph = model_.graph();
  for (const auto& [name, value] : inputs) {
    const onyx::Value* declared = graph.findValue(name);
    if (!declared || !declared->isGraphInput()) {
      std::string names;
      for (const onyx::Value* v : graph.inputs()) names += (names.empty() ? "" : ", ") + v->name();
      return makeError("the model has no input '" + name + "' (inputs: " + names + ")", name);
    }
  }
  for (const onyx::Value* v : graph.inputs()) {
    const RunValue* given = nullptr;
    for (const auto& [name, value] : inputs)
      if (name == v->name()) given = &value;
    if (!given) {
      if (v->isInitializer()) continue;
      if (v->type().kind() == Type::Kind::Optional) continue;
      return makeError("missing input '" + v->name() + "' (" + v->type().toString() + ")", v->name());
    }
    const Type& type = v->type();
    const auto* t = std::get_if<TensorValue>(given);
    if (type.isTensor() && t) {
      if (type.elemType() != DataType::Undefined && t->dtype() != type.elemType()) {
        return makeError(
            "input '" + v->name() + "' is " + t->describe() + " but the model expects " + type.toString(),
            v->name());
      }
      if (type.shape()) {
        const Shape& shape = *type.shape();
        if (shape.size() != t->dims().size()) {
          return makeError("input '" + v->name() + "' has rank " + std::to_string(t->rank()) + " (" +
                               t->describe() + ") but the model expects " + type.toString(),
                           v->name());
        }
        for (size_t d = 0; d < shape.size(); ++d) {
          int64_t actual = t->dims()[d];
          if (auto fixed = shape[d].value()) {
            if (*fixed != actual) {
              return makeError("input '" + v->name() + "' has dim " + std::to_string(d) + " = " +
                                   std::to_string(actual) + " but the model fixes it to " +
                                   std::to_string(*fixed),
                               v->name());
            }
          } else if (shape[d].isSymbolic() && shape[d].expr().isSymbol()) {
            std::string symbol = shape[d].expr().symbolName();
            auto [it, inserted] = bindings_.emplace(symbol, actual);
            if (!inserted && it->second != actual) {
              return makeError("input '" + v->name() + "' binds " + symbol + " = " + std::to_string(actual) +
                                   " but an earlier input bound it to " + std::to_string(it->second),
                               v->name());
            }
          }
        }
      }
    } else if (type.isTensor() && !t) {
      return makeError("input '" + v->name() + "' must be a tensor, got " + describeValue(*given), v->name());
    }
  }
  return {};
}

Expected<std::vector<RunValue>> Executor::run(const NamedValues& inputs) {
  if (options_.validateInputs) {
    auto valid = validateInputs(inputs);
    if (!valid) return valid.error();
  }
  Frame frame{main_.get(), std::move(main_->keptSlots), nullptr};
  frame.slots.resize(main_->slotValue.size());
  // Kept from the last run: constants and shape arithmetic (executePlan checks the latter still holds).
  for (size_t slot = 0; slot < frame.slots.size(); ++slot)
    if (!main_->isConstant[slot] && !main_->isShapeDerived[slot]) frame.slots[slot] = RunValue();
  const Graph& graph = model_.graph();
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const onyx::Value* v = graph.inputs()[i];
    RunValue& slot = frame.slots[size_t(main_->inputSlots[i])];
    slot = RunValue();  // an initializer's default unless given again
    for (const auto& [name, value] : inputs)
      if (name == v->name()) slot = value;
  }
  Profiler* profiler = options_.profile ? &profiler_ : nullptr;
  if (profiler) profiler->beginIteration();
  auto result = executePlan(*this, *main_, frame, options_.useArena, profiler, options_.arenaLimitBytes);
  main_->keptSlots = std::move(frame.slots);
  for (const auto& backend : backends_) {
    auto finished = backend->finishRun();
    if (!finished && result) result = finished.error();
  }
  if (profiler) profiler->endIteration();
  return result;
}

MemoryReport Executor::memoryReport() const {
  MemoryReport report;
  const ArenaState* arena = main_ ? main_->lastArena : nullptr;
  if (!arena || !arena->planned) return report;
  report.arenaBytes = arena->plan.arenaBytes;
  report.peakBytes = arena->plan.peakBytes;
  report.heapFallbacks = arena->heapFallbacks;
  report.inPlaceCount = arena->plan.inPlaceCount;
  if (arena->plan.peakStep >= 0) {
    const Step& step = main_->steps[size_t(arena->plan.peakStep)];
    report.peakNode = step.node ? step.node->describe() : "transfer";
  }
  for (int r : arena->plan.aliveAtPeak)
    report.aliveAtPeak.push_back({arena->requests[size_t(r)].label, arena->requests[size_t(r)].bytes});
  report.buffers = arena->requests;
  report.offsets = arena->plan.offsets;
  report.peakStep = arena->plan.peakStep;
  for (const Step& step : main_->steps) {
    report.stepLabels.push_back(step.node ? step.node->describe() : "transfer");
    report.stepNodes.push_back(step.node ? step.node->id() : kNoNode);
  }
  return report;
}

std::vector<Assignment> Executor::assignments() const {
  std::vector<Assignment> out;
  for (const Step& step : main_->steps)
    if (step.node)
      out.push_back({step.node, std::string(step.backend->name()), std::string(step.prepared->variant()),
                     step.channelsLastOut});
  return out;
}

std::vector<std::pair<std::string, std::string>> Executor::devices() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& backend : backends_) out.push_back({std::string(backend->name()), backend->deviceName()});
  return out;
}

int Executor::transferCount() const {
  return main_->transfers;
}

Expected<RunValue> randomInput(const onyx::Value& input, const SymBindings& bindings, uint64_t seed) {
  const Type& type = input.type();
  if (!type.isTensor())
    return makeError("cannot make a random value for input of type " + type.toString(), input.name());
  Dims dims;
  if (type.shape()) {
    for (const Dim& d : *type.shape()) {
      if (auto v = d.value()) {
        dims.push_back(*v);
      } else if (d.isSymbolic()) {
        auto value = d.expr().evaluate(bindings);
        if (!value) {
          return makeError("input '" + input.name() + "' has dim " + d.toString() + "; bind it with --bind " +
                               d.toString() + "=N",
                           input.name());
        }
        dims.push_back(*value);
      } else {
        dims.push_back(1);
      }
    }
  }
  TensorValue t = TensorValue::allocate(type.elemType(), dims);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.count(); ++i) {
    switch (t.dtype()) {
      case DataType::Float:
        t.data<float>()[i] = uniform(rng);
        break;
      case DataType::Double:
        t.data<double>()[i] = uniform(rng);
        break;
      case DataType::Float16:
        t.data<Half>()[i] = Half(uniform(rng));
        break;
      case DataType::Int64:
        t.data<int64_t>()[i] = int64_t(rng() % 2);
        break;  // valid ids and masks
      case DataType::Int32:
        t.data<int32_t>()[i] = int32_t(rng() % 2);
        break;
      case DataType::Bool:
        t.data<bool>()[i] = rng() % 2;
        break;
      default:
        break;
    }
  }
  return RunValue(std::move(t));
}

}  // namespace onyx::exec
