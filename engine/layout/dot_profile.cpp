#include "layout/dot_profile.h"

namespace onyx::layout {

DotProfile chooseProfile(size_t itemCount, const DotPolicy& policy) {
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
  }
  return "?";
}

std::vector<std::pair<std::string_view, std::string_view>> dotGraphAttributes(DotProfile profile) {
  std::vector<std::pair<std::string_view, std::string_view>> attributes{
      {"rankdir", "TB"}, {"nodesep", "0.25"}, {"ranksep", "0.4"}, {"splines", "true"}};
  if (profile == DotProfile::Quality) return attributes;
  // newrank is what makes these near linear: without it the same limits still took 17-20 s at 10k nodes.
  attributes.insert(attributes.end(), {{"nslimit", "0"},
                                       {"nslimit1", "0"},
                                       {"mclimit", "0.1"},
                                       {"remincross", "false"},
                                       {"searchsize", "10"},
                                       {"newrank", "true"}});
  if (profile == DotProfile::FastStraight) attributes[3].second = "false";
  return attributes;
}

}  // namespace onyx::layout
