#pragma once
// onnx 1.12's text syntax has no node names; tests write `Relu <name = "/a/Relu"> (x)` and this turns that
// attribute into the node's name (main graph and function bodies), so the model looks like an exporter's.
#include <memory>
#include <string_view>

#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace onyx::testing {

inline void nameNodesFromAttribute(Model& model) {
  Rewriter rewriter(model);
  auto rename = [&](Graph& graph) {
    for (Node* node : graph.nodes()) {
      const Attribute* name = node->attribute("name");
      if (!name) continue;
      std::string text = node->attrString("name", "");
      rewriter.removeAttribute(node, "name");
      rewriter.renameNode(node, text);
    }
  };
  rename(model.graph());
  for (auto& function : model.functions)
    if (function->body) rename(*function->body);
}

inline Expected<std::unique_ptr<Model>> parseNamedModelText(std::string_view text) {
  auto model = parseModelText(text);
  if (model) nameNodesFromAttribute(**model);
  return model;
}

}  // namespace onyx::testing
