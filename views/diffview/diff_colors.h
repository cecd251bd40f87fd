#pragma once
// The diff's colours, shared by the change list and the canvas overlay: added green, removed red, changed
// amber.
#include <QColor>

#include "diff/graph_diff.h"

namespace onyx::views {

enum class DiffTone { Added, Removed, Changed };

QColor diffToneColor(DiffTone tone);
DiffTone changeTone(diff::ChangeKind kind);
// The overlay colour of a node; invalid (no colour) for an unchanged node.
QColor nodeStatusColor(diff::NodeStatus status);

}  // namespace onyx::views
