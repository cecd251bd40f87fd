#pragma once
// Which Graphviz dot attributes a level is laid out with. Default dot is the best-looking but grows
// steeply (seconds at 2k nodes, minutes at 10k); the fast set keeps it near linear. The thresholds and
// the figures behind them are in engine/layout/README.md.
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace onyx::layout {

enum class DotProfile {
  Quality,       // dot's defaults: fewest crossings, for levels small enough that it is quick
  Fast,          // x-coordinate network simplex skipped, crossing minimisation cut short, newrank
  FastStraight,  // the fast set with straight edges, for large levels
  Layered,       // no dot at all: layered_layout.h, for levels dot cannot take
};

struct DotPolicy {
  size_t fastAbove = 500;       // items; above this, Fast
  size_t straightAbove = 3000;  // items; above this, FastStraight
  // Items; above this, Layered. dot crashed on a 40,000-node chain (issue #25 C6) and a 30k-node network
  // already took 4.5 s with the fast set; past 20k a level is not something to read box by box anyway.
  size_t layeredAbove = 20000;
};

DotProfile chooseProfile(size_t itemCount, const DotPolicy& policy = {});
std::string_view profileName(DotProfile profile);

// Graph attributes for the profile, on top of those every level gets (rankdir=TB, separations).
std::vector<std::pair<std::string_view, std::string_view>> dotGraphAttributes(DotProfile profile);

}  // namespace onyx::layout
