// Replaying a run without walking the plan (run_replay.h).
#include "exec/run_replay.h"

#include <algorithm>

#include "exec/plan_context.h"

namespace onyx::exec {

namespace {

const TensorValue* hostTensor(const RunValue* value) {
  const auto* t = value ? std::get_if<TensorValue>(value) : nullptr;
  return t && !t->empty() && !t->device() && t->isPlainLayout() ? t : nullptr;
}

// The graph input in `slot`, or -1.
int inputOfSlot(const GraphPlan& plan, int slot) {
  auto it = std::find(plan.inputSlots.begin(), plan.inputSlots.end(), slot);
  return it == plan.inputSlots.end() ? -1 : int(it - plan.inputSlots.begin());
}

// Whether what a run computes, besides uploading its inputs, is the same for any input values of the same
// dims: host steps only fold (constants, shape arithmetic, Shape/Size), and a device step reads a graph
// input on the host only as a Gather's indices into a weight (an input as a shape or other operand would
// change the recorded commands). Fills the Gathers' index checks.
bool dependsOnlyOnDims(const GraphPlan& plan, std::vector<std::pair<size_t, int64_t>>& indexChecks) {
  for (const Step& step : plan.steps) {
    if (!step.node) continue;  // a transfer
    if (step.backend->usesHostMemory()) {
      if (step.fold == Fold::None) return false;
      continue;
    }
    for (const EpilogueStep& ep : step.epilogue)
      for (int slot : ep.inputs)
        if (slot >= 0 && plan.isInputSlot(slot)) return false;
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const int slot = step.inputs[i];
      if (slot < 0 || !plan.isInputSlot(slot)) continue;
      const Node& node = *step.node;
      const onyx::Value* table = step.inputs[0] >= 0 ? plan.slotValue[size_t(step.inputs[0])] : nullptr;
      const onyx::Tensor* weight = table && !plan.isInputSlot(step.inputs[0]) ? table->initializer() : nullptr;
      if (node.opType() != "Gather" || !isOnnxDomain(node) || i != 1 || !weight || weight->dims().empty()) return false;
      const int64_t rank = int64_t(weight->dims().size());
      int64_t axis = node.attrInt("axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return false;
      indexChecks.push_back({size_t(inputOfSlot(plan, slot)), weight->dims()[size_t(axis)]});
    }
  }
  return true;
}

}  // namespace

std::optional<RunReplay> RunReplay::of(const GraphPlan& plan, Backend& device,
                                       const std::vector<const RunValue*>& given, const std::vector<RunValue>& outputs) {
  std::vector<std::pair<size_t, int64_t>> indexChecks;
  if (!dependsOnlyOnDims(plan, indexChecks)) return std::nullopt;
  auto transfers = device.runTransfers();
  if (!transfers) return std::nullopt;
  RunReplay replay;
  for (const auto& [input, length] : indexChecks) replay.indexChecks_.push_back({input, length});
  replay.device_ = &device;
  for (const RunValue* value : given) {
    const TensorValue* t = hostTensor(value);
    if (!t) return std::nullopt;  // an input left to its initializer, or not a host tensor
    replay.inputDims_.push_back(t->dims());
    replay.inputTypes_.push_back(t->dtype());
  }
  for (const auto& upload : transfers->uploads) {
    auto from = std::find_if(given.begin(), given.end(), [&](const RunValue* value) {
      const TensorValue* t = hostTensor(value);
      return t->raw() == upload.first && t->byteSize() == upload.second;
    });
    if (from == given.end()) return std::nullopt;  // an upload of something else than an input
    replay.uploadInput_.push_back(size_t(from - given.begin()));
  }
  std::vector<bool> filled(outputs.size(), false);
  for (const auto& readback : transfers->readbacks) {
    auto to = std::find_if(outputs.begin(), outputs.end(), [&](const RunValue& value) {
      const TensorValue* t = hostTensor(&value);
      return t && t->raw() == readback.first && t->byteSize() == readback.second;
    });
    if (to == outputs.end()) return std::nullopt;  // a readback the host read during the run
    replay.readbackOutput_.push_back(size_t(to - outputs.begin()));
    filled[size_t(to - outputs.begin())] = true;
  }
  if (std::find(filled.begin(), filled.end(), false) != filled.end()) return std::nullopt;  // computed on the host
  for (const RunValue& value : outputs) replay.outputs_.push_back(*hostTensor(&value));
  return replay;
}

bool RunReplay::fits(const std::vector<const RunValue*>& given) const {
  if (given.size() != inputDims_.size()) return false;
  for (size_t i = 0; i < given.size(); ++i) {
    const TensorValue* t = hostTensor(given[i]);
    if (!t || t->dims() != inputDims_[i] || t->dtype() != inputTypes_[i]) return false;
  }
  for (const IndexCheck& check : indexChecks_) {
    const TensorValue& indices = *hostTensor(given[check.input]);
    for (int64_t i = 0; i < indices.count(); ++i)
      if (int64_t v = indices.intAt(i); v < 0 || v >= check.length) return false;
  }
  return true;
}

Expected<std::vector<RunValue>> RunReplay::run(const std::vector<const RunValue*>& given) {
  std::vector<const void*> sources;
  for (size_t input : uploadInput_) sources.push_back(hostTensor(given[input])->raw());
  for (TensorValue& out : outputs_)  // the caller still holds the last ones: fresh storage
    if (out.owner().use_count() > 1) out = TensorValue::allocate(out.dtype(), out.dims());
  std::vector<void*> targets;
  for (size_t output : readbackOutput_) targets.push_back(outputs_[output].raw());
  auto replayed = device_->replayRun(sources, targets);
  if (!replayed) return replayed.error();
  return std::vector<RunValue>(outputs_.begin(), outputs_.end());
}

}  // namespace onyx::exec
