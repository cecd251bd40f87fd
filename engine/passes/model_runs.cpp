#include "passes/model_runs.h"

#include <fmt/format.h>

namespace onyx::passes {

namespace {

// Outputs that stay valid after the executor is gone (outputs may view its arena).
std::vector<exec::RunValue> detach(std::vector<exec::RunValue> values) {
  for (auto& value : values) {
    if (auto* tensor = std::get_if<exec::TensorValue>(&value)) {
      value = tensor->clone();
    } else if (auto* sequence = std::get_if<exec::SequenceValue>(&value)) {
      for (auto& item : sequence->tensors) item = item.clone();
    }
  }
  return values;
}

}  // namespace

Expected<exec::NamedValues> checkInputs(const Model& model, const exec::NamedValues& given,
                                        const SymBindings& givenBindings, uint64_t seed) {
  if (!given.empty()) return given;
  exec::NamedValues inputs;
  SymBindings bindings = givenBindings;
  for (const Value* input : model.graph().inputs()) {
    if (input->isInitializer() || !input->type().shape()) continue;
    for (const Dim& dim : *input->type().shape())
      if (dim.isSymbolic() && !dim.expr().evaluate(bindings)) bindings[dim.toString()] = 1;
  }
  for (const Value* input : model.graph().inputs()) {
    if (input->isInitializer()) continue;
    auto value = exec::randomInput(*input, bindings, seed++);
    if (!value) return value.error();
    inputs.push_back({input->name(), std::move(*value)});
  }
  return inputs;
}

Expected<std::vector<exec::RunValue>> runForCheck(const Model& model, const exec::NamedValues& inputs) {
  exec::ExecutorOptions options;
  options.useArena = false;
  auto executor = exec::Executor::create(model, options);
  if (!executor) return executor.error();
  auto outputs = (*executor)->run(inputs);
  if (!outputs) return outputs.error();
  return detach(std::move(*outputs));
}

std::vector<OutputError> compareOutputs(const Model& model, const std::vector<exec::RunValue>& outputs,
                                        const std::vector<exec::RunValue>& reference,
                                        const exec::Tolerance& tolerance) {
  std::vector<OutputError> errors;
  const Graph& graph = model.graph();
  for (size_t k = 0; k < reference.size() && k < outputs.size(); ++k) {
    exec::Comparison c = exec::compareValues(outputs[k], reference[k], tolerance);
    std::string name = k < graph.outputs().size() ? graph.outputs()[k]->name() : std::to_string(k);
    errors.push_back({name, c.maxAbsError, c.maxRelError, c.ok, c.reason});
  }
  if (outputs.size() != reference.size())
    errors.push_back(
        {"(count)", 0, 0, false,
         fmt::format("the model has {} outputs, {} before the step", outputs.size(), reference.size())});
  return errors;
}

const OutputError* firstMismatch(const std::vector<OutputError>& errors) {
  for (const OutputError& error : errors)
    if (!error.ok) return &error;
  return nullptr;
}

}  // namespace onyx::passes
