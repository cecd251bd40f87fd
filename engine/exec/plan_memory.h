#pragma once
// Planning step 6, plan memory. While planning: each slot's last reader (GraphPlan::lastUse), which frees
// values during a run and bounds the lifetimes of arena buffers. After the first run with a binding of input
// shapes recorded what each step allocates (ArenaState::requests): the arena itself, every intermediate at
// an offset where buffers alive at the same time never overlap (memory_planner.h).
#include <cstdint>

#include "exec/graph_plan.h"

namespace onyx::exec {

// Fills plan.lastUse: the last step reading each slot (epilogue operands and body captures included; a slot
// nobody reads dies at the step writing it); graph inputs (owned by the caller) and outputs never die.
void planLiveness(GraphPlan& plan);

// Plans and allocates the arena for the recorded requests (escaping ones take no space). Over `limitBytes`
// (when > 0): an error naming the node at the peak and the largest tensor alive there, and the plan forgets
// its arenas.
Expected<void> planArena(GraphPlan& plan, ArenaState& arena, int64_t limitBytes);

}  // namespace onyx::exec
