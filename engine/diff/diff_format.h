#pragma once
// How `onyx diff` and the GUI's change list write a ModelDiff: a summary line, one line per change, JSON.
#include <string>

#include "diff/graph_diff.h"

namespace onyx::diff {

// "3 added, 5 removed, 2 changed nodes; 1 initializer changed": the node counts always, other counts when
// not zero.
std::string formatSummary(const DiffSummary& summary);
// "+ node Relu 'r' (#7)", "~ node Conv 'c' (#3): attribute strides [1, 1] -> [2, 2]",
// "~ value 't1' in Loop 'l' (#4) body: renamed to 't2'"; '+' added, '-' removed, '~' changed.
std::string formatChange(const Change& change);
// The summary line, then one line per change.
std::string formatDiffText(const ModelDiff& diff);
// {"summary": {...counts...}, "changes": [{"kind": "node-added", "scope": "", "subject": ..., ...}]}
std::string formatDiffJson(const ModelDiff& diff);

}  // namespace onyx::diff
