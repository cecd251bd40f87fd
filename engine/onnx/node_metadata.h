#pragma once
// NodeProto.metadata_props (field 9, newer than the onnx 1.12 schema we build against): the loader keeps
// it among the node's unknown fields so a save writes it back untouched; this reads it out. Exporters put
// the module a node came from there (PyTorch 2.x dynamo: `namespace`, `pkg.torch.onnx.name_scopes`).
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"
#include "ir/node_origin.h"

namespace onyx {

// The metadata_props in a NodeProto's serialized unknown fields, in file order; empty when there are none or
// the bytes do not parse.
std::vector<StringPair> metadataPropsFromUnknownFields(const std::string& unknownFields);
// The same for a loaded node.
inline std::vector<StringPair> nodeMetadataProps(const Node& node) {
  return metadataPropsFromUnknownFields(node.unknownFields());
}

// Provenance (ir/node_origin.h): the nodes a node was made from, as its metadata_props entry "onyx.origin"
// holds them (a JSON list of [id, op type, name]); empty when there is none or it does not parse.
std::vector<NodeOrigin> originsFromUnknownFields(const std::string& unknownFields);
inline std::vector<NodeOrigin> nodeOrigins(const Node& node) {
  return originsFromUnknownFields(node.unknownFields());
}
// `unknownFields` with its "onyx.origin" entry replaced by `origins` (none when empty); the other fields
// keep their order.
std::string withNodeOrigins(const std::string& unknownFields, const std::vector<NodeOrigin>& origins);

}  // namespace onyx
