// Planning step 6, plan memory (plan_memory.h): liveness, and the arena planned from a recording run.
#include "exec/plan_memory.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "util/limits.h"

namespace onyx::exec {

void planLiveness(GraphPlan& plan) {
  plan.lastUse.assign(plan.slotValue.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    for (int slot : step.inputs)
      if (slot >= 0) plan.lastUse[size_t(slot)] = int(s);
    for (int slot : step.captures) plan.lastUse[size_t(slot)] = int(s);
    for (const EpilogueStep& ep : step.epilogue)  // constants the absorbed nodes read when run one by one
      for (int slot : ep.inputs)
        if (slot >= 0) plan.lastUse[size_t(slot)] = std::max(plan.lastUse[size_t(slot)], int(s));
    for (int slot : step.outputs)
      if (slot >= 0 && plan.lastUse[size_t(slot)] < int(s)) plan.lastUse[size_t(slot)] = int(s);
  }
  for (int slot : plan.outputSlots)
    if (slot >= 0) plan.lastUse[size_t(slot)] = kForever;
  for (int slot : plan.inputSlots) plan.lastUse[size_t(slot)] = kForever;  // owned by the caller
}

Expected<void> planArena(GraphPlan& plan, ArenaState& arena, int64_t limitBytes) {
  for (size_t r = 0; r < arena.requests.size(); ++r) {
    if (arena.escapes[r]) arena.requests[r].bytes = 0;  // kept in the list so indices stay valid
  }
  arena.plan = planMemory(arena.requests);
  // No limit from the caller: the policy's bytes per run, so an arena the machine cannot hold is an error.
  const bool policyLimit = limitBytes <= 0;
  if (policyLimit) limitBytes = resourceLimits().maxRunBytes;
  if (arena.plan.arenaBytes > limitBytes) {
    std::string biggest;
    if (!arena.plan.aliveAtPeak.empty()) biggest = arena.requests[size_t(arena.plan.aliveAtPeak[0])].label;
    const Step& peak = plan.steps[size_t(std::max(0, arena.plan.peakStep))];
    std::string raise = "Raise the limit";
    if (policyLimit) raise += " with " + std::string(kMaxRunBytesEnv);
    Error error = makeError("the run needs an arena of " + std::to_string(arena.plan.arenaBytes) +
                                " bytes, over the limit of " + std::to_string(limitBytes) +
                                "; the largest tensor alive at the peak is " + biggest + ". " + raise +
                                " or use smaller inputs",
                            peak.node ? peak.node->describe() : "transfer");
    plan.arenas.clear();  // `arena` is gone with them
    plan.lastArena = nullptr;
    return error;
  }
  void* block = std::aligned_alloc(64, size_t(std::max<int64_t>(arena.plan.arenaBytes, 64) + 63) / 64 * 64);
  if (!block) {
    plan.arenas.clear();
    plan.lastArena = nullptr;
    return makeError("could not allocate the run's arena of " + std::to_string(arena.plan.arenaBytes) +
                         " bytes: the machine is out of memory; use smaller inputs",
                     "arena");
  }
  arena.arena = std::shared_ptr<void>(block, [](void* p) { std::free(p); });
  arena.tags = std::make_unique<char[]>(arena.requests.size() + 1);
  arena.requestOfStorage.clear();
  for (size_t r = 0; r < arena.requests.size(); ++r) arena.requestOfStorage[&arena.tags[r]] = int(r);
  arena.planned = true;
  return {};
}

}  // namespace onyx::exec
