#pragma once
// A layout that stays put between two states of the same level (a pass step, an undo, a redo): items whose
// key the previous layout already placed keep their boxes, edges between unmoved items keep their routes,
// and only what is new gets a place, beside the items it connects to. dot cannot be seeded with positions
// (it ranks and orders from scratch, so removing one node of a chain moves everything below it), and a fresh
// run is what makes a step read as a new picture instead of as the change it is.
#include <memory>
#include <optional>

#include "layout/layout_result.h"

namespace onyx::layout {

// How much may be new before a fresh dot layout reads better than placing the new items one by one.
struct StablePolicy {
  double maxNewShare = 0.25;  // of the new level's items
  size_t alwaysAllowedNew = 12;  // this many new items are placed whatever the share
  size_t maxNewItems = 200;      // each placement checks every box: keep it well under a frame's time
};

// The new level laid out around `previous` (the same level before an edit), or nullopt when too much is new,
// an expanded frame is new, or nothing of the previous layout is left: the caller runs dot instead.
std::optional<LevelLayout> layoutAround(const LevelLayout& previous, std::shared_ptr<const LevelView> level,
                                        const StablePolicy& policy = {});

}  // namespace onyx::layout
