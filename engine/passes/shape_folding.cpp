// shape-folding: exporters compute shapes at run time (Shape -> Gather -> Unsqueeze -> Concat -> Reshape).
// Symbolic shape inference tracks the elements of such small integer tensors; where every element of a
// value is static (also under symbolic inputs: Gather of a static dim of [batch, 128, 768] is 128), the
// value becomes an initializer that keeps its name, and dead-code-elimination drops the chain behind it.
// Where a value stays symbolic it gets simpler: a Reshape to [batch, sequence, 12, 64] of a [batch,
// sequence, 768] tensor gets the constant shape [0, 0, 12, 64] (0 copies the input's dim, one -1 is
// inferred), and two values known to be the same expression ([batch] from two Shape chains) become one.
#include <fmt/format.h>

#include <unordered_map>
#include <variant>

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
      return Tensor::fromValues(DataType::Int32, *dims,
                                std::vector<int32_t>(elements.begin(), elements.end()));
    case DataType::Bool:
      return Tensor::fromValues(DataType::Bool, *dims,
                                std::vector<uint8_t>(elements.begin(), elements.end()));
    default:
      return std::nullopt;  // float values are tracked only when integral: not exact enough to store
  }
}

std::string joined(const std::vector<Dim>& dims) {
  std::string text;
  for (const Dim& d : dims) text += (text.empty() ? "" : ", ") + d.toString();
  return "[" + text + "]";
}

// A constant shape for a Reshape whose shape input is symbolic: each static element as is, an element equal
// to the input's dim at that position as 0 (allowzero = 0 copies it), and one other symbolic element as -1.
std::variant<std::vector<int64_t>, std::string> staticReshapeShape(PassContext& context, const Node& node) {
  const InferredValue* shapeValue = context.shapes().find(node.input(1));
  if (!shapeValue || !shapeValue->value)
    return "elements of the shape " + valueRef(node.input(1)) + " unknown";
  const InferredValue* data = context.shapes().find(node.input(0));
  const Type& dataType = data ? data->type : node.input(0)->type();
  if (!dataType.shape()) return "shape of " + valueRef(node.input(0)) + " unknown";
  const Shape& in = *dataType.shape();
  const std::vector<Dim>& target = *shapeValue->value;
  bool inferredUsed = false;
  for (const Dim& d : target) inferredUsed = inferredUsed || d.value() == std::optional<int64_t>(-1);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i].isUnknown())
      return fmt::format("element {} of the shape {} unknown", i, valueRef(node.input(1)));
    if (auto v = target[i].value()) {
      shape.push_back(*v);
    } else if (i < in.size() && !in[i].isUnknown() && in[i].expr() == target[i].expr()) {
      shape.push_back(0);
    } else if (!inferredUsed) {
      shape.push_back(-1);
      inferredUsed = true;
    } else {
      return "shape " + joined(target) + " has more than one dim that is neither static nor the input's";
    }
  }
  return shape;
}

// A key equal for values with the same type and the same (symbolic) elements; nullopt when not all known.
std::optional<std::string> symbolicValueKey(const InferredValue& inferred) {
  if (!inferred.value || !inferred.type.isTensor() || !inferred.type.shape()) return std::nullopt;
  if (!staticDims(*inferred.type.shape())) return std::nullopt;
  for (const Dim& d : *inferred.value)
    if (d.isUnknown()) return std::nullopt;
  return inferred.type.toString() + "=" + joined(*inferred.value);
}

}  // namespace

Expected<bool> ShapeFolding::run(PassContext& context) {
  bool changed = false;
  Rewriter& rewriter = context.rewriter();
  const ShapeInference& shapes = context.shapes();
  for (Graph* graph : allGraphs(context.model())) {
    std::unordered_map<std::string, Value*> symbolicValues;
    for (Node* node : orderedNodes(*graph)) {
      if (!context.inScope(*node) || node->opType() == "Constant" || isNondeterministic(*node)) continue;
      if (node->outputCount() != 1 || !node->output(0) || node->output(0)->uses().empty()) continue;
      Value* output = node->output(0);
      const InferredValue* inferred = shapes.find(output);
      std::optional<Tensor> tensor = inferred ? staticValue(*inferred) : std::nullopt;
      if (tensor) {
        if (isGraphOutput(output)) {
          context.skip(*node, "output " + valueRef(output) + " is a graph output, which stays a node output");
          continue;
        }
        std::string name = output->name();
        tensor->setName(name);
        Value* constant =
            rewriter.addInitializer(*graph, freshValueName(*graph, name + "__folded"), std::move(*tensor));
        rewriter.replaceAllUsesWith(output, constant);
        eraseNode(rewriter, node);
        rewriter.renameValue(constant, name);
        context.count("values-folded");
        changed = true;
        continue;
      }
      if (node->opType() == "Reshape" && node->input(1) && !fixedInitializer(node->input(1)) &&
          node->attrInt("allowzero", 0) == 0 && isStandardDomain(node->domain())) {
        auto shape = staticReshapeShape(context, *node);
        if (auto* reason = std::get_if<std::string>(&shape)) {
          context.skip(*node, *reason);
        } else {
          auto& dims = std::get<std::vector<int64_t>>(shape);
          Tensor constant = Tensor::fromValues(DataType::Int64, {int64_t(dims.size())}, dims);
          std::string name = freshValueName(*graph, node->input(1)->name() + "_static");
          constant.setName(name);
          rewriter.setInput(node, 1, rewriter.addInitializer(*graph, name, std::move(constant)));
          context.count("reshape-shapes-made-constant");
          changed = true;
        }
      }
      if (!inferred) continue;
      auto key = symbolicValueKey(*inferred);
      if (!key) continue;
      auto [found, inserted] = symbolicValues.try_emplace(*key, output);
      if (inserted) {
        if (node->opType() == "Gather")
          context.skip(*node, "value of " + valueRef(output) + " is symbolic: " + joined(*inferred->value));
        continue;
      }
      if (auto reason = whyNotReplaceable(*node, {found->second})) {
        context.skip(*node, "same value " + *key + " as " + valueRef(found->second) + ", but " + *reason);
        continue;
      }
      replaceNode(rewriter, node, {found->second});
      context.count("symbolic-values-shared");
      changed = true;
    }
  }
  return changed;
}

}  // namespace onyx::passes
