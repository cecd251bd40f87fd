#include "diffview/diff_colors.h"

#include <algorithm>

namespace onyx::views {

QColor diffToneColor(DiffTone tone) {
  switch (tone) {
    case DiffTone::Added:
      return QColor(0x2e, 0x9e, 0x44);  // green
    case DiffTone::Removed:
      return QColor(0xd0, 0x35, 0x2b);  // red
    case DiffTone::Changed:
      return QColor(0xf0, 0xa2, 0x02);  // amber
  }
  return {};
}

DiffTone changeTone(diff::ChangeKind kind) {
  switch (diff::changeDirection(kind)) {
    case diff::ChangeDirection::Added:
      return DiffTone::Added;
    case diff::ChangeDirection::Removed:
      return DiffTone::Removed;
    case diff::ChangeDirection::Changed:
      break;
  }
  return DiffTone::Changed;
}

QColor nodeStatusColor(diff::NodeStatus status) {
  switch (status) {
    case diff::NodeStatus::Added:
      return diffToneColor(DiffTone::Added);
    case diff::NodeStatus::Removed:
      return diffToneColor(DiffTone::Removed);
    case diff::NodeStatus::Changed:
      return diffToneColor(DiffTone::Changed);
    case diff::NodeStatus::Unchanged:
      break;
  }
  return {};
}

QColor unchangedNodeColor(const QColor& opColor) {
  // Lightness keeps the categories apart a little; no saturation keeps them apart from the diff's tones.
  const int lightness = std::max(opColor.lightness(), 200);
  return QColor::fromHsl(0, 0, lightness);
}

}  // namespace onyx::views
