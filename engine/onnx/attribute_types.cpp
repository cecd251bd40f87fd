// Attribute types against ONNX's schemas (the registry libonnx carries): a node whose attribute has another
// type than its operator declares (Softmax's `axis` given as INTS, a FLOAT where an INT belongs) is an error
// when the model is loaded from a file. Kernels read attributes by type and would otherwise fall back to the
// default without a word.
#include <onnx/defs/schema.h>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

std::string typeName(int type) {
  if (type == 0) return "UNDEFINED (no value)";
  return onnx::AttributeProto_AttributeType_Name(static_cast<onnx::AttributeProto_AttributeType>(type));
}

class AttributeTypeChecker {
 public:
  explicit AttributeTypeChecker(const Model& model) : model_(model) {}

  // `opsets`: the imports the graph's nodes see (the model's, or a function's own).
  Expected<void> checkGraph(const Graph& graph, const std::vector<OpsetImport>& opsets) {
    for (const Node* node : graph.nodes()) {
      if (auto ok = checkNode(*node, opsets); !ok) return ok;
      for (const Graph* body : node->subgraphs())
        if (auto ok = checkGraph(*body, opsets); !ok) return ok;
    }
    return {};
  }

 private:
  static int64_t versionOf(const std::vector<OpsetImport>& opsets, const std::string& domain) {
    for (const OpsetImport& opset : opsets)
      if (opset.domain == domain || (domain.empty() && opset.domain == "ai.onnx")) return opset.version;
    return 0;
  }

  Expected<void> checkNode(const Node& node, const std::vector<OpsetImport>& opsets) {
    const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    int64_t version = versionOf(opsets, domain);
    if (version <= 0 && &opsets != &model_.opsetImports) version = versionOf(model_.opsetImports, domain);
    if (version <= 0) return {};  // an op of an unimported domain: verify() reports it
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(node.opType(), int(std::min<int64_t>(version, 1 << 20)), domain);
    if (!schema) return {};  // custom domains and ops newer than the library: no declared types to hold to
    const auto& declared = schema->attributes();
    for (const Attribute& attribute : node.attributes()) {
      if (attribute.isReference()) continue;  // typed by the function's caller
      auto it = declared.find(attribute.name());
      if (it == declared.end()) continue;
      int expected = int(it->second.type);
      int found = int(attribute.kind());
      if (found == expected) continue;
      return makeError(node.describe() + ": attribute '" + attribute.name() + "' is " + typeName(found) +
                       ", the operator expects " + typeName(expected));
    }
    return {};
  }

  const Model& model_;
};

}  // namespace

Expected<void> checkAttributeTypes(const Model& model) {
  AttributeTypeChecker checker(model);
  for (const auto& function : model.functions)
    if (auto ok = checker.checkGraph(*function->body, function->opsetImports); !ok) return ok;
  return checker.checkGraph(model.graph(), model.opsetImports);
}

}  // namespace onyx::onnx_io
