#pragma once
// One dot run over a level. Graphviz 2.42 keeps global state and is not thread-safe (two concurrent
// layouts crashed 3 of 3 times), so callers hold graphvizLock() for the whole run; the LayoutService
// worker is the only caller.
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "layout/layout_result.h"
#include "util/expected.h"

namespace onyx::layout {

std::mutex& graphvizLock();

struct DotRunHooks {
  std::function<bool()> cancelled;  // polled between phases
  std::function<void(LayoutPhase, double fraction)> progress;
};

// The level laid out, nullopt when cancelled during the run, or an error when Graphviz fails.
Expected<std::optional<LevelLayout>> runDot(std::shared_ptr<const LevelView> level, DotProfile profile,
                                            const DotRunHooks& hooks = {});

}  // namespace onyx::layout
