#pragma once
// What an edge says: the value's dtype and shape, each dim as text (symbolic dims as expressions such as
// `floor((H - 1)/2) + 1`) with the unknown ones marked, so the canvas paints them red.
#include <QString>
#include <functional>
#include <vector>

#include "ir/graph.h"

namespace onyx {
struct ShapeInference;
}

namespace onyx::views {

struct LabelRun {
  QString text;
  bool unresolved = false;
  friend bool operator==(const LabelRun&, const LabelRun&) = default;
};

struct EdgeLabel {
  std::vector<LabelRun> runs;  // "float32[", "N", ", ", "?", "]"
  bool unresolved = false;     // some dim (or the rank) is unknown
  bool empty() const { return runs.empty(); }
  QString plainText() const;
  friend bool operator==(const EdgeLabel&, const EdgeLabel&) = default;
};

// The label of a value from an inference (the declared type when the inference does not know it).
EdgeLabel edgeLabelOf(const Value* value, const ShapeInference* inference);

using EdgeLabelSource = std::function<EdgeLabel(const Value*)>;
EdgeLabelSource edgeLabelsFrom(const ShapeInference* inference);

class ModelDocument;
// What the canvas shows for an open document: its inference, except that a value whose type was edited
// since the inference started shows the declared type (ModelDocument::shownType) until re-inference lands.
EdgeLabelSource edgeLabelsFrom(const ModelDocument& document);

}  // namespace onyx::views
