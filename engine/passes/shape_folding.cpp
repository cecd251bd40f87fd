// shape-folding: exporters compute shapes at run time (Shape -> Gather -> Unsqueeze -> Concat -> Reshape).
// Symbolic shape inference tracks the elements of such small integer tensors; where every element of a
// value is static (also under symbolic inputs: Gather of a static dim of [batch, 128, 768] is 128), the
// value becomes an initializer that keeps its name, and dead-code-elimination drops the chain behind it.
#include <fmt/format.h>

#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

// The value as a tensor, when shape inference knows its type, static shape and every element.
std::optional<Tensor> staticValue(const InferredValue& inferred) {
  if (!inferred.value || !inferred.type.isTensor() || !inferred.type.shape()) return std::nullopt;
  auto dims = staticDims(*inferred.type.shape());
  if (!dims) return std::nullopt;
  std::vector<int64_t> elements;
  for (const Dim& dim : *inferred.value) {
    auto v = dim.value();
    if (!v) return std::nullopt;
    elements.push_back(*v);
  }
  int64_t count = 1;
  for (int64_t d : *dims) count *= d;
  if (count != int64_t(elements.size())) return std::nullopt;
  switch (inferred.type.elemType()) {
    case DataType::Int64:
      return Tensor::fromValues(DataType::Int64, *dims, elements);
    case DataType::Int32:
      return Tensor::fromValues(DataType::Int32, *dims, std::vector<int32_t>(elements.begin(), elements.end()));
    case DataType::Bool:
      return Tensor::fromValues(DataType::Bool, *dims, std::vector<uint8_t>(elements.begin(), elements.end()));
    default:
      return std::nullopt;  // float values are tracked only when integral: not exact enough to store
  }
}

}  // namespace

Expected<bool> ShapeFolding::run(PassContext& context) {
  bool changed = false;
  Rewriter& rewriter = context.rewriter();
  const ShapeInference& shapes = context.shapes();
  for (Graph* graph : allGraphs(context.model())) {
    for (Node* node : orderedNodes(*graph)) {
      if (!context.inScope(*node) || node->opType() == "Constant" || isNondeterministic(*node)) continue;
      if (node->outputCount() != 1 || !node->output(0) || node->output(0)->uses().empty()) continue;
      Value* output = node->output(0);
      const InferredValue* inferred = shapes.find(output);
      if (!inferred || !inferred->value) continue;
      std::optional<Tensor> tensor = staticValue(*inferred);
      if (!tensor) {
        if (node->opType() == "Shape" || node->opType() == "Gather" || node->opType() == "Concat")
          context.skip(*node, "value of " + valueRef(output) + " is symbolic: " + [&] {
            std::string text;
            for (const Dim& d : *inferred->value) text += (text.empty() ? "" : ", ") + d.toString();
            return "[" + text + "]";
          }());
        continue;
      }
      if (isGraphOutput(output)) {
        context.skip(*node, "output " + valueRef(output) + " is a graph output, which stays a node output");
        continue;
      }
      std::string name = output->name();
      tensor->setName(name);
      Value* constant =
          rewriter.addInitializer(*graph, uniqueValueName(context.model(), name + "__folded"), std::move(*tensor));
      rewriter.replaceAllUsesWith(output, constant);
      // The node itself may still feed nothing else: dead-code-elimination removes it and its inputs' chain.
      eraseNode(rewriter, node);
      rewriter.renameValue(constant, name);
      context.count("values-folded");
      changed = true;
    }
  }
  return changed;
}

}  // namespace onyx::passes
