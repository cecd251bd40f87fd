#pragma once
// Text the explorer's panels share: types with unknown dims in red, how nodes and values are named, and the
// selections that point at them.
#include <QColor>
#include <QString>
#include <string>

#include "ir/graph.h"
#include "model_document.h"

namespace onyx::views {

// The colour of an unresolved dim everywhere in the explorer (canvas edges, inspector, panels).
QColor unknownDimColor();

inline QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// "float32[N, <red>?</red>, 64]" as HTML; a red "?" for an unknown type or rank.
QString typeHtml(const Type& type);
// The type inferred for `value` in `document`, else the type the model declares (ModelDocument::shownType).
const Type& typeOf(const ModelDocument& document, const Value& value);
bool hasUnknownDims(const Type& type);

Selection nodeSelection(const Node& node);
Selection valueSelection(const Value& value);

// What "Copy name" copies: a node's name (its description when it has none), a value's name.
QString selectionName(const Selection& selection);

}  // namespace onyx::views
