// Planning step 5, choose layouts (plan_layout.h).
#include "exec/plan_layout.h"

#include <utility>
#include <vector>

#include "exec/channels_last.h"

namespace onyx::exec {

namespace {

bool transparent(const Step& step) {
  return step.node && step.epilogue.empty() && step.backend->usesHostMemory() &&
         isLayoutTransparent(*step.node);
}

// Whether `reader` takes its input `input` channels-last: its kernel accepts it there (and keeps it, when it
// reads it only to keep it), or it is layout-transparent and keeps its own output channels-last.
bool takesChannelsLast(const Step& reader, size_t input) {
  size_t asked = reader.kernelInput(input);
  return reader.node && ((reader.prepared->acceptsChannelsLast(asked) &&
                          (!reader.prepared->readsChannelsLastOnlyToKeepIt() || reader.channelsLastOut)) ||
                         (transparent(reader) && reader.channelsLastOut));
}

}  // namespace

void chooseChannelsLastOutputs(GraphPlan& plan, const std::unordered_set<const onyx::Value*>& pinned,
                               bool channelBlocks) {
  std::vector<std::vector<std::pair<size_t, size_t>>> readers(plan.slotValue.size());  // (step, input)
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (size_t i = 0; i < plan.steps[s].inputs.size(); ++i)
      if (int slot = plan.steps[s].inputs[i]; slot >= 0) readers[size_t(slot)].push_back({s, i});
  for (size_t s = plan.steps.size(); s-- > 0;) {
    Step& step = plan.steps[s];
    if (!step.node || step.outputs.empty() || step.outputs[0] < 0) continue;
    if (!step.prepared->producesChannelsLast() && !transparent(step)) continue;
    int slot = step.outputs[0];
    const onyx::Value* value = plan.slotValue[size_t(slot)];
    if (!value || pinned.count(value) || readers[size_t(slot)].empty()) continue;
    bool allTake = true, allTakeBlocks = channelBlocks && !transparent(step);
    for (auto [r, input] : readers[size_t(slot)]) {
      const Step& reader = plan.steps[r];
      allTake = allTake && takesChannelsLast(reader, input);
      allTakeBlocks = allTakeBlocks && reader.node && reader.prepared->acceptsBlocked16(reader.kernelInput(input));
    }
    step.channelsLastOut = allTake;
    step.blocked16Out = allTake && allTakeBlocks;
  }
}

}  // namespace onyx::exec
