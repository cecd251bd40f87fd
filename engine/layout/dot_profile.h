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
  FastStraight,  // the fast set with straight edges, for the largest levels
};

struct DotPolicy {
  size_t fastAbove = 500;       // items; above this, Fast
  size_t straightAbove = 3000;  // items; above this, FastStraight
};

DotProfile chooseProfile(size_t itemCount, const DotPolicy& policy = {});
std::string_view profileName(DotProfile profile);

// Graph attributes for the profile, on top of those every level gets (rankdir=TB, separations).
std::vector<std::pair<std::string_view, std::string_view>> dotGraphAttributes(DotProfile profile);

}  // namespace onyx::layout
