#pragma once
// The layout of levels too large for Graphviz: dot crashed (stack overflow in its recursive ranking and
// positioning) on a 40,000-node chain, and takes tens of seconds well before that. This one is linear: each
// item's rank is the longest path from a source, items of a rank sit left to right in level order, edges are
// straight, and cluster frames enclose their items. It reads nothing but the level, like runDot.
#include <memory>

#include "layout/layout_result.h"

namespace onyx::layout {

LevelLayout layeredLayout(std::shared_ptr<const LevelView> level);

}  // namespace onyx::layout
