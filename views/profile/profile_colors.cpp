#include "profile_colors.h"

#include <algorithm>
#include <functional>
#include <string>

namespace onyx::views {

QColor opTypeColor(std::string_view opType) {
  // A hash picks the hue so that colours are stable across runs and models, in the warm-to-green range
  // that keeps black labels readable.
  size_t hash = std::hash<std::string_view>{}(opType);
  return QColor::fromHsv(int(hash % 160), 90 + int(hash / 160 % 60), 235);
}

QColor scopeColor(int depth) {
  return QColor::fromHsv(210, 30 + 12 * (depth % 5), 240);
}

QColor heatColor(double t) {
  t = std::clamp(t, 0.0, 1.0);
  // Hue from yellow (60) to red (0), lightness from 90% to 35%.
  return QColor::fromHslF(float((1.0 - t) * 60.0 / 360.0), 0.9f, float(0.9 - 0.55 * t));
}

}  // namespace onyx::views
