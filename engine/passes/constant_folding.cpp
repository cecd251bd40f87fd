// constant-folding: a deterministic node whose inputs are all constants is computed once, now, by the CPU
// kernels (the node alone in a one-node model run by the executor), and its outputs become initializers that
// keep the outputs' names. Constant nodes become initializers. Results above PassOptions::
// constantFoldingSizeLimit bytes stay computed at run time, so a file does not grow by a broadcast.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "exec/executor.h"
#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

// Element types whose run-time storage is the file's raw layout (strings aside).
bool isPlainStorage(DataType dtype) {
  return dtype == DataType::String || (exec::elementBytes(dtype) > 0 && dataTypeBits(dtype) % 8 == 0 &&
                                       size_t(dataTypeBits(dtype) / 8) == exec::elementBytes(dtype));
}

Tensor toTensor(const exec::TensorValue& value) {
  if (value.dtype() == DataType::String) {
    const std::string* strings = value.data<std::string>();
    return Tensor::strings(value.dims(), std::vector<std::string>(strings, strings + value.count()));
  }
  const auto* raw = static_cast<const std::byte*>(value.raw());
  return Tensor::fromValues(value.dtype(), value.dims(), std::vector<std::byte>(raw, raw + value.byteSize()));
}

// Runs `node` alone on constant inputs: the executor's own kernels and validation, nothing special-cased.
Expected<std::vector<Tensor>> evaluate(const Model& model, const Node& node,
                                       const std::vector<std::optional<Tensor>>& inputs) {
  Model single;
  single.irVersion = model.irVersion;
  single.opsetImports = model.opsetImports;
  Rewriter rewriter(single);
  Graph& graph = single.graph();
  Rewriter::NodeSpec spec;
  spec.opType = node.opType();
  spec.domain = node.domain();
  spec.name = node.name();
  spec.attributes = node.attributes();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      spec.inputs.push_back(nullptr);
      continue;
    }
    Tensor tensor = *inputs[i];
    tensor.setName("input_" + std::to_string(i));
    spec.inputs.push_back(rewriter.addInitializer(graph, "input_" + std::to_string(i), std::move(tensor)));
  }
  for (size_t i = 0; i < node.outputCount(); ++i)
    spec.outputNames.push_back(node.output(i) ? "output_" + std::to_string(i) : "");
  Node* copy = rewriter.addNode(graph, std::move(spec));
  std::vector<Value*> outputs;
  for (Value* output : copy->outputs())
    if (output) outputs.push_back(output);
  rewriter.setGraphOutputs(graph, outputs);

  exec::ExecutorOptions options;
  options.threads = 1;
  options.useArena = false;
  auto executor = exec::Executor::create(single, options);
  if (!executor) return executor.error();
  auto results = (*executor)->run({});
  if (!results) return results.error();
  std::vector<Tensor> tensors;
  for (const exec::RunValue& result : *results) {
    const auto* tensor = std::get_if<exec::TensorValue>(&result);
    if (!tensor) return makeError("an output is not a tensor (" + exec::describeValue(result) + ")");
    if (!isPlainStorage(tensor->dtype()))
      return makeError(
          fmt::format("an output is {}, kept in another layout at run time", dataTypeName(tensor->dtype())));
    tensors.push_back(toTensor(*tensor));
  }
  return tensors;
}

// Replaces the node's outputs by initializers holding `tensors` (one per present output, in order).
void replaceByInitializers(PassContext& context, Node* node, std::vector<Tensor> tensors) {
  Rewriter& rewriter = context.rewriter();
  Graph& graph = *node->graph();
  std::vector<Value*> replacements(node->outputCount(), nullptr);
  std::vector<std::pair<Value*, std::string>> names;
  size_t next = 0;
  for (size_t i = 0; i < node->outputCount(); ++i) {
    Value* output = node->output(i);
    if (!output) continue;
    Tensor& tensor = tensors[next++];
    if (output->uses().empty()) continue;
    std::string temporary = freshValueName(graph, output->name() + "__folded");
    tensor.setName(output->name());
    replacements[i] = rewriter.addInitializer(graph, temporary, std::move(tensor));
    names.push_back({replacements[i], output->name()});
  }
  for (size_t i = 0; i < node->outputCount(); ++i)
    if (replacements[i]) rewriter.replaceAllUsesWith(node->output(i), replacements[i]);
  eraseNode(rewriter, node);
  for (auto& [value, name] : names) rewriter.renameValue(value, name);
}

std::optional<int64_t> staticBytes(PassContext& context, const Value* value) {
  const InferredValue* inferred = context.shapes().find(value);
  const Type& type = inferred ? inferred->type : value->type();
  if (!type.isTensor() || !type.shape()) return std::nullopt;
  auto count = staticElementCount(*type.shape());
  if (!count || type.elemType() == DataType::Undefined) return std::nullopt;
  return int64_t(dataTypeStorageBytes(type.elemType(), *count));
}

}  // namespace

Expected<bool> ConstantFolding::run(PassContext& context) {
  bool changed = false;
  const int64_t limit = context.options().constantFoldingSizeLimit;
  for (Graph* graph : allGraphs(context.model())) {
    for (Node* node : orderedNodes(*graph)) {
      if (!context.inScope(*node) || !isStandardDomain(node->domain())) continue;
      bool used = false;
      bool graphOutput = false;
      for (Value* output : node->outputs()) {
        used = used || (output && !output->uses().empty());
        graphOutput = graphOutput || isGraphOutput(output);
      }
      if (!used) continue;  // dead code is dead-code-elimination's
      bool isConstantNode = node->opType() == "Constant";
      std::vector<std::optional<Tensor>> inputs;
      bool allConstant = true;
      for (Value* input : node->inputs()) {
        if (!input) {
          inputs.push_back(std::nullopt);
          continue;
        }
        // Constants of this graph or an enclosing one; a Constant node's output counts once it is an
        // initializer (this sweep converts producers before their consumers).
        const Tensor* tensor = fixedInitializer(input);
        if (!tensor) {
          allConstant = false;
          break;
        }
        inputs.push_back(*tensor);
      }
      if (!allConstant) continue;
      if (graphOutput) {
        context.skip(*node, "an output is a graph output, which stays a node output");
        continue;
      }
      if (isConstantNode) {
        std::optional<Tensor> value = constantValue(node->output(0));
        if (!value) {
          context.skip(*node, "sparse or referenced constant");
          continue;
        }
        replaceByInitializers(context, node, {std::move(*value)});
        context.count("constants-to-initializers");
        changed = true;
        continue;
      }
      if (isNondeterministic(*node)) {
        context.skip(*node, "not deterministic");
        continue;
      }
      if (!node->subgraphs().empty()) {
        context.skip(*node, "has a body");
        continue;
      }
      // Results no larger than their inputs never grow the file (Concat of weights, Transpose): always
      // folded.
      int64_t inputBytes = 0;
      for (const auto& input : inputs)
        if (input) inputBytes += int64_t(input->byteSize());
      const int64_t allowed = std::max(limit, inputBytes);
      int64_t bytes = 0;
      bool known = true;
      for (Value* output : node->outputs()) {
        if (!output) continue;
        auto size = staticBytes(context, output);
        known = known && size.has_value();
        if (size) bytes += *size;
      }
      if (known && bytes > allowed) {
        context.skip(*node,
                     fmt::format("result of {} bytes exceeds the folding limit of {} bytes", bytes, limit));
        continue;
      }
      auto results = evaluate(context.model(), *node, inputs);
      if (!results) {
        context.skip(*node, "cannot be computed: " + results.error().message);
        continue;
      }
      bytes = 0;
      for (const Tensor& tensor : *results) bytes += int64_t(tensor.byteSize());
      if (bytes > allowed) {
        context.skip(*node,
                     fmt::format("result of {} bytes exceeds the folding limit of {} bytes", bytes, limit));
        continue;
      }
      replaceByInitializers(context, node, std::move(*results));
      context.count("nodes-folded");
      changed = true;
    }
  }
  return changed;
}

}  // namespace onyx::passes
