#pragma once
// Which module of the exporting framework a node came from, as a scope path ("/encoder/layer.0/attention").
// PyTorch 2.x (dynamo) exports name nodes "node_linear_3" and record the module in metadata_props instead:
//   pkg.torch.onnx.name_scopes = "['', 'model', 'model.layers.0', 'model.layers.0.self_attn', 'linear_3']"
//   namespace = ": Llama/model: LlamaModel/model.layers.0: LlamaDecoderLayer/linear_3: aten.linear.default"
// Both list cumulative module names from the root to the node itself; the path keeps each module's name
// relative to its parent ("model", "layers.0", "self_attn"), as the TorchScript exporter's names do.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"

namespace onyx {

// The elements of a Python list of strings as repr() writes it ("['', 'a.b']"); nullopt if it is not one.
std::optional<std::vector<std::string>> parsePythonStringList(std::string_view text);

// The module path the metadata names ("" for the root module); nullopt when it names none.
std::optional<std::string> modulePathFromMetadata(const std::vector<StringPair>& metadata);

// The scope a node belongs to: its module path from metadata when the exporter recorded one, otherwise
// the scope part of its name (Node::scopePath).
std::string scopePathOf(const Node& node);

}  // namespace onyx
