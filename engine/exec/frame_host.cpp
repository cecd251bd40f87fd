// Output memory and bodies for the kernels of a run (frame_host.h).
#include "exec/frame_host.h"

#include <algorithm>

namespace onyx::exec {

namespace {

// Whether any storage the value holds satisfies `test` (ids visited in place: a vector of them cost an
// allocation per step output every run).
template <class Test>
bool anyStorage(const RunValue& value, Test test) {
  if (auto* t = std::get_if<TensorValue>(&value)) return t->storageId() && test(t->storageId());
  if (auto* s = std::get_if<SequenceValue>(&value))
    for (const TensorValue& e : s->tensors)
      if (e.storageId() && test(e.storageId())) return true;
  return false;
}

void cloneStorage(RunValue& value) {
  if (auto* t = std::get_if<TensorValue>(&value))
    *t = t->clone();
  else if (auto* q = std::get_if<SequenceValue>(&value))
    for (TensorValue& e : q->tensors) e = e.clone();
}

}  // namespace

ArenaState& arenaFor(GraphPlan& plan, const Frame& frame) {
  std::vector<Dims> key;
  for (int slot : plan.inputSlots) {
    const RunValue& v = frame.slots[size_t(slot)];
    if (auto* t = std::get_if<TensorValue>(&v))
      key.push_back(t->dims());
    else
      key.push_back({-1});
  }
  if (plan.arenas.size() > 8 && !plan.arenas.count(key)) plan.arenas.clear();
  ArenaState& arena = plan.arenas[key];
  if (!arena.planned) arena = ArenaState();
  plan.lastArena = &arena;
  return arena;
}

// A graph output's storage: a kept block the caller no longer holds, or a new one kept for later runs.
TensorValue FrameHost::outputBlock(int request, DataType dtype, Dims dims, int64_t bytes) {
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

// A recording run's output: on the heap, with a request for its buffer, in place of an input that dies here
// when the kernel allows it.
TensorValue FrameHost::recordRequest(size_t index, DataType dtype, Dims dims, int64_t bytes) {
  const Step& s = plan_.steps[size_t(step_)];
  TensorValue t = TensorValue::allocate(dtype, std::move(dims));
  int request = int(arena_->requests.size());
  BufferRequest r;
  r.bytes = bytes;
  r.firstStep = step_;
  r.lastStep = step_;
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
    if (other.lastStep == step_ && other.bytes == bytes && !arena_->escapes[size_t(it->second)] &&
        !taken_.count(it->second)) {
      r.sharesWith = it->second;
      taken_.insert(it->second);
    }
  }
  arena_->requests.push_back(std::move(r));
  arena_->escapes.push_back(false);
  arena_->requestOf[{step_, int(index)}] = request;
  arena_->requestOfStorage[t.storageId()] = request;
  return t;
}

Expected<TensorValue> FrameHost::allocateOutput(size_t index, DataType dtype, Dims dims) {
  int64_t bytes = int64_t(elementCount(dims) * int64_t(elementBytes(dtype)));
  if (!arena_ || heapOnly || dtype == DataType::String) return TensorValue::allocate(dtype, std::move(dims));
  if (recording_) return recordRequest(index, dtype, std::move(dims), bytes);
  auto it = arena_->requestOf.find({step_, int(index)});
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

Expected<std::vector<RunValue>> FrameHost::runSubgraph(const Graph& body, std::vector<RunValue> inputs) {
  auto it = env_.bodies.find(&body);
  if (it == env_.bodies.end() || !it->second) return makeError("body graph was not planned", body.name());
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
  return runPlan(env_, child, childFrame, false, 0);
}

void FrameHost::trackOutput(RunValue& output, int slot) {
  if (!arena_) return;
  int last = plan_.lastUse[size_t(slot)];
  const bool copyOut = anyStorage(output, [&](const void* id) {
    auto it = arena_->requestOfStorage.find(id);
    if (it == arena_->requestOfStorage.end()) return false;
    size_t r = size_t(it->second);
    if (recording_) {
      if (last == kForever)
        arena_->escapes[r] = true;
      else
        arena_->requests[r].lastStep = std::max(arena_->requests[r].lastStep, last);
      return false;
    }
    return last == kForever || arena_->requests[r].lastStep < last;
  });
  if (copyOut) {  // an alias the first run did not show (data-dependent): copy out of the arena
    cloneStorage(output);
    ++arena_->heapFallbacks;
  }
}

void FrameHost::detachFromArena(RunValue& output) const {
  if (!arena_ || recording_) return;
  if (anyStorage(output, [&](const void* id) { return arena_->requestOfStorage.count(id) != 0; }))
    cloneStorage(output);
}

}  // namespace onyx::exec
