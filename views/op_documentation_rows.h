#pragma once
// The Inspector's "Op" section for a node: the ONNX schema's summary, inputs, outputs and attributes
// (onnxOpDocumentation, from the schema registry libonnx carries) under the catalogue's facts that
// `onyx ops NAME` prints (category, since versions, the kernels each backend has).
#include <QTreeWidget>

#include "ir/graph.h"

namespace onyx::views {

// Adds the section, titled "Op", to `tree`. `opset` is the model's import for the node's domain (0: none,
// the newest definition is shown).
QTreeWidgetItem* addOpDocumentation(QTreeWidget* tree, const Node& node, int64_t opset);

}  // namespace onyx::views
