#pragma once
// Finding nodes and values in a model by what the user remembers about them: a node's name or op type, a
// value's name, or its inferred shape.
//
// A query is matched against every field, or against one when it starts with a prefix:
//   name:TEXT   node and value names containing TEXT (case-insensitive)
//   op:TYPE     nodes whose op type is TYPE (case-insensitive, whole word: op:Conv skips ConvTranspose)
//   shape:TEXT  values whose shape has a dim equal to TEXT when TEXT is one dim (`256`, `N*S`, `S*N`: dims
//               compare as expressions), or whose shape text contains TEXT when TEXT has `[` or `,`
//               (`[1, 3`, spaces ignored)
// Without a prefix, names and op types match by substring and shapes as with shape:.
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "shapes/shape_inference.h"

namespace onyx {

enum class SearchField { NodeName, OpType, ValueName, Shape };

struct SearchMatch {
  const Graph* graph = nullptr;               // where the match lives (main graph, a body, a function body)
  const Node* node = nullptr;                 // a node match, or
  const Value* value = nullptr;               // a value match
  SearchField field = SearchField::NodeName;  // the first field that matched
};

// Matches in graph order: the main graph's inputs and initializers, then each node followed by its
// outputs and the bodies it holds; then the bodies of local functions. Shapes come from `inference`
// (the declared type where it has no entry, as for function bodies).
std::vector<SearchMatch> searchModel(const Model& model, const ShapeInference& inference,
                                     std::string_view query);

}  // namespace onyx
