#pragma once
// The diff's colours, shared by the change list and the canvas overlay: added green, removed red, changed
// amber. Unchanged nodes are a neutral grey, so that op colours (Relu's red, MaxPool's green) never read as
// a change.
#include <QColor>

#include "diff/graph_diff.h"

namespace onyx::views {

enum class DiffTone { Added, Removed, Changed };

QColor diffToneColor(DiffTone tone);
DiffTone changeTone(diff::ChangeKind kind);
// The overlay colour of a node; invalid (no colour) for an unchanged node.
QColor nodeStatusColor(diff::NodeStatus status);
// An unchanged node's fill: its op colour with the hue taken out, kept light.
QColor unchangedNodeColor(const QColor& opColor);

}  // namespace onyx::views
