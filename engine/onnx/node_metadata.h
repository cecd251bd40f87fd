#pragma once
// NodeProto.metadata_props (field 9, newer than the onnx 1.12 schema we build against): the loader keeps
// it among the node's unknown fields so a save writes it back untouched; this reads it out. Exporters put
// the module a node came from there (PyTorch 2.x dynamo: `namespace`, `pkg.torch.onnx.name_scopes`).
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"

namespace onyx {

// The metadata_props in a NodeProto's serialized unknown fields, in file order; empty when there are none or
// the bytes do not parse.
std::vector<StringPair> metadataPropsFromUnknownFields(const std::string& unknownFields);
// The same for a loaded node.
inline std::vector<StringPair> nodeMetadataProps(const Node& node) {
  return metadataPropsFromUnknownFields(node.unknownFields());
}

}  // namespace onyx
