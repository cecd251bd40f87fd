#include "passes/rewrite_helpers.h"

#include <algorithm>

namespace onyx::passes {

bool isGraphOutput(const Value* value) {
  return value && std::any_of(value->uses().begin(), value->uses().end(),
                              [](const Use& use) { return use.graphOutput != nullptr; });
}

Node* soleConsumer(const Value* value) {
  if (!value || value->uses().size() != 1) return nullptr;
  return value->uses()[0].node;
}

bool isOp(const Node* node, std::string_view op) {
  return node && node->opType() == op && (node->domain().empty() || node->domain() == "ai.onnx");
}

Node* producerOf(const Value* value, std::string_view op) {
  Node* producer = value ? value->producer() : nullptr;
  return isOp(producer, op) ? producer : nullptr;
}

const Tensor* constantOf(const Value* value) {
  if (!value) return nullptr;
  if (value->isInitializer()) return value->isGraphInput() ? nullptr : value->initializer();
  const Node* producer = value->producer();
  if (!isOp(producer, "Constant")) return nullptr;
  const Attribute* attribute = producer->attribute("value");
  return attribute ? attribute->getTensor() : nullptr;
}

std::optional<std::vector<double>> constantReals(const Value* value) {
  const Tensor* tensor = constantOf(value);
  if (!tensor || tensor->isExternal()) return std::nullopt;
  std::vector<double> out;
  if (tensor->dtype() == DataType::Float) {
    for (float v : tensor->values<float>()) out.push_back(v);
  } else if (tensor->dtype() == DataType::Double) {
    for (double v : tensor->values<double>()) out.push_back(v);
  } else {
    return std::nullopt;
  }
  if (int64_t(out.size()) != tensor->elementCount()) return std::nullopt;
  return out;
}

std::optional<std::vector<int64_t>> constantInts(const Value* value) {
  const Tensor* tensor = constantOf(value);
  if (!tensor || tensor->isExternal()) return std::nullopt;
  std::vector<int64_t> out;
  if (tensor->dtype() == DataType::Int64) {
    for (int64_t v : tensor->values<int64_t>()) out.push_back(v);
  } else if (tensor->dtype() == DataType::Int32) {
    for (int32_t v : tensor->values<int32_t>()) out.push_back(v);
  } else {
    return std::nullopt;
  }
  if (int64_t(out.size()) != tensor->elementCount()) return std::nullopt;
  return out;
}

std::optional<double> constantScalar(const Value* value) {
  auto reals = constantReals(value);
  if (reals && reals->size() == 1) return (*reals)[0];
  auto ints = constantInts(value);
  if (ints && ints->size() == 1) return double((*ints)[0]);
  return std::nullopt;
}

std::optional<Shape> shapeOf(PassContext& context, const Value* value) {
  if (!value) return std::nullopt;
  if (const InferredValue* inferred = context.shapes().find(value)) {
    if (inferred->type.isTensor() && inferred->type.shape()) return inferred->type.shape();
  }
  if (value->type().isTensor() && value->type().shape()) return value->type().shape();
  return std::nullopt;
}

DataType elemTypeOf(PassContext& context, const Value* value) {
  if (!value) return DataType::Undefined;
  if (value->type().isTensor() && value->type().elemType() != DataType::Undefined)
    return value->type().elemType();
  if (const InferredValue* inferred = context.shapes().find(value))
    if (inferred->type.isTensor()) return inferred->type.elemType();
  return DataType::Undefined;
}

std::optional<std::vector<int64_t>> normalizeAxes(std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

namespace {
bool nodeNameTaken(const Graph& graph, const std::string& name) {
  return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                     [&](const Node* n) { return n->name() == name; });
}
}  // namespace

std::string freshName(const Graph& graph, const std::string& base) {
  if (!graph.resolve(base)) return base;
  for (int suffix = 1;; ++suffix) {
    std::string name = base + "_" + std::to_string(suffix);
    if (!graph.resolve(name)) return name;
  }
}

std::string freshNodeName(const Graph& graph, const std::string& base) {
  if (!nodeNameTaken(graph, base)) return base;
  for (int suffix = 1;; ++suffix) {
    std::string name = base + "_" + std::to_string(suffix);
    if (!nodeNameTaken(graph, name)) return name;
  }
}

std::string replacementBlocker(const Value* result, const Value* replacement) {
  if (!isGraphOutput(result)) return {};
  if (!replacement->producer() || isGraphOutput(replacement))
    return "its output '" + result->name() + "' is a graph output and '" + replacement->name() +
           "' cannot take its name";
  return {};
}

void removeIfUnused(Rewriter& rewriter, const std::vector<Node*>& nodes) {
  for (Node* node : nodes) {
    if (!node || !node->graph()) continue;
    bool used = false;
    for (Value* output : node->outputs()) used = used || (output && !output->uses().empty());
    if (used) continue;
    std::vector<Value*> inputs = node->inputs();
    Graph& graph = *node->graph();
    rewriter.removeNode(node);
    for (Value* input : inputs) {
      if (input && input->isInitializer() && !input->isGraphInput() && input->uses().empty() &&
          input->graph() == &graph && !isGraphOutput(input))
        rewriter.removeValue(input);
    }
  }
}

void replaceResult(Rewriter& rewriter, Value* result, Value* replacement, const std::vector<Node*>& dead) {
  bool output = isGraphOutput(result);
  std::string name = result->name();
  Type type = result->type();
  rewriter.replaceAllUsesWith(result, replacement);
  removeIfUnused(rewriter, dead);
  if (!output) return;
  // The graph output keeps its name and declared type.
  if (!replacement->graph()->findValue(name)) rewriter.renameValue(replacement, name);
  if (replacement->type().isNone() && !type.isNone()) rewriter.setType(replacement, std::move(type));
}

Value* addFloatInitializer(Rewriter& rewriter, Graph& graph, const std::string& base,
                           std::vector<int64_t> dims, const std::vector<float>& values) {
  return rewriter.addInitializer(graph, freshName(graph, base),
                                 Tensor::fromValues<float>(DataType::Float, std::move(dims), values));
}

std::vector<NodeId> nodeIdsOf(const Graph& graph) {
  std::vector<NodeId> ids;
  for (const Node* node : graph.nodes()) ids.push_back(node->id());
  return ids;
}

}  // namespace onyx::passes
