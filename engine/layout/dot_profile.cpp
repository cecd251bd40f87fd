#include "layout/dot_profile.h"

namespace onyx::layout {

DotProfile chooseProfile(size_t itemCount, const DotPolicy& policy) {
  if (itemCount > policy.layeredAbove) return DotProfile::Layered;
  if (itemCount > policy.straightAbove) return DotProfile::FastStraight;
  if (itemCount > policy.fastAbove) return DotProfile::Fast;
  return DotProfile::Quality;
}

std::string_view profileName(DotProfile profile) {
  switch (profile) {
    case DotProfile::Quality:
      return "quality";
    case DotProfile::Fast:
      return "fast";
    case DotProfile::FastStraight:
      return "fast-straight";
    case DotProfile::Layered:
      return "layered";
  }
  return "?";
}

std::vector<std::pair<std::string_view, std::string_view>> dotGraphAttributes(DotProfile profile) {
  std::vector<std::pair<std::string_view, std::string_view>> attributes{
      {"rankdir", "TB"}, {"nodesep", "0.25"}, {"ranksep", "0.4"}, {"splines", "true"}};
  if (profile == DotProfile::Quality) return attributes;
  // nslimit=0 skips network simplex for x coordinates, the step that grows steeply (2.3 s -> 0.09 s on a
  // 2k-node network); newrank keeps ranking near linear. nslimit1=0, the other half of the usual fast set,
  // is left out: it ranks real models so badly that spline routing took 15 s (efficientnet_b0), 37 s
  // (shufflenet_v2) and over a minute (ssdlite320) instead of well under one. See README.md.
  attributes.insert(attributes.end(), {{"nslimit", "0"},
                                       {"mclimit", "0.1"},
                                       {"remincross", "false"},
                                       {"searchsize", "10"},
                                       {"newrank", "true"}});
  if (profile == DotProfile::FastStraight) attributes[3].second = "false";
  return attributes;
}

}  // namespace onyx::layout
