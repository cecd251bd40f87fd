#include "exec/function_call.h"

#include "exec/cpu/cpu_isa.h"
#include "exec/fused_elementwise.h"

namespace onyx::exec {

namespace {

class FunctionCall final : public PreparedNode {
 public:
  FunctionCall(const Function& function, std::optional<ElementwiseProgram> program)
      : function_(function), program_(std::move(program)) {}

  Expected<void> run(KernelContext& context) override {
    if (program_ && allFloatTensors(context)) return runElementwiseProgram(*program_, context);
    const Graph& body = *function_.body;
    std::vector<RunValue> inputs(body.inputs().size());
    for (size_t i = 0; i < inputs.size() && i < context.inputCount(); ++i)
      if (context.hasInput(i)) inputs[i] = context.inputValue(i);
    auto outputs = context.runSubgraph(body, std::move(inputs));
    if (!outputs) return outputs.error();
    for (size_t i = 0; i < context.outputCount() && i < outputs->size(); ++i)
      if (context.wantsOutput(i)) context.setOutput(i, std::move((*outputs)[i]));
    return {};
  }
  std::string_view variant() const override { return program_ ? "fused" : "function"; }
  // The fused program's loops are fast_math's, per instruction set.
  std::string_view implementation() const override {
    return program_ ? cpuIsaName(cpuIsa()) : std::string_view();
  }

 private:
  bool allFloatTensors(const KernelContext& context) const {
    if (int(context.inputCount()) != program_->inputCount) return false;
    for (size_t i = 0; i < context.inputCount(); ++i) {
      const auto* t = context.hasInput(i) ? std::get_if<TensorValue>(&context.inputValue(i)) : nullptr;
      if (!t || t->dtype() != DataType::Float || t->device()) return false;
    }
    return true;
  }

  const Function& function_;
  std::optional<ElementwiseProgram> program_;
};

bool readsCallAttributes(const Graph& graph) {
  for (const Node* node : graph.nodes()) {
    for (const Attribute& attribute : node->attributes())
      if (attribute.isReference()) return true;
    for (const Graph* nested : node->subgraphs())
      if (readsCallAttributes(*nested)) return true;
  }
  return false;
}

}  // namespace

Expected<std::unique_ptr<PreparedNode>> prepareFunctionCall(const Node& node, const Function& function) {
  if (!function.body)
    return makeError("function " + function.domain + "." + function.name + " has no body", node.describe());
  if (readsCallAttributes(*function.body)) {
    return makeError("function " + function.domain + "." + function.name +
                         " reads attributes of its call (attribute references); the executor runs only "
                         "functions without them. Inline the function (onnx.inliner) to run this model",
                     node.describe());
  }
  return std::unique_ptr<PreparedNode>(
      std::make_unique<FunctionCall>(function, compileElementwiseBody(*function.body)));
}

}  // namespace onyx::exec
