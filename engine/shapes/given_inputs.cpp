#include "shapes/given_inputs.h"

namespace onyx {

namespace {

// The type of a sequence whose elements are these tensors: their element type, and each dim where all of
// them agree (a symbol where they differ). Nullopt when the elements are not tensors of one rank.
std::optional<Type> sequenceTypeOf(const TestValue& value, size_t inputIndex) {
  if (value.elements.empty() || value.elements[0].kind != TestValue::Kind::Tensor) return std::nullopt;
  const Tensor& first = value.elements[0].tensor;
  Shape shape(first.dims().begin(), first.dims().end());
  for (const TestValue& element : value.elements) {
    if (element.kind != TestValue::Kind::Tensor || element.tensor.dims().size() != shape.size()) return std::nullopt;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d].value() != element.tensor.dims()[d]) {
        shape[d] = Dim::symbol("seq_" + std::to_string(inputIndex) + "_" + std::to_string(d));
      }
    }
  }
  return Type::sequence(Type::tensor(first.dtype(), shape));
}

}  // namespace

Expected<GivenInputs> GivenInputs::load(const Model& model, const std::filesystem::path& folder) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(folder, ignored)) {
    return makeError("not a folder: give a test_data_set_N folder holding input_0.pb, input_1.pb, ...", folder.string());
  }
  std::vector<const Value*> inputs;
  for (const Value* input : model.graph().inputs()) {
    if (!input->isInitializer()) inputs.push_back(input);
  }
  GivenInputs given;
  for (size_t k = 0;; ++k) {
    std::filesystem::path file = folder / ("input_" + std::to_string(k) + ".pb");
    if (!std::filesystem::exists(file, ignored)) break;
    if (k >= inputs.size()) {
      return makeError("input_" + std::to_string(k) + ".pb has no graph input to feed: the model has " +
                           std::to_string(inputs.size()) + " input(s) that are not initializers",
                       file.string());
    }
    auto loaded = loadTestValueFile(file, inputs[k]->type());
    if (!loaded) {
      return makeError("graph input " + std::to_string(k) + " '" + inputs[k]->name() + "' from " +
                           file.filename().string() + ": " + loaded.error().message,
                       file.string());
    }
    if (loaded->kind == TestValue::Kind::Sequence) {
      if (auto type = sequenceTypeOf(*loaded, k)) given.sequenceTypes_.emplace_back(inputs[k]->name(), std::move(*type));
    }
    given.names_.push_back(inputs[k]->name());
    given.values_.push_back(std::move(*loaded));
  }
  if (given.values_.empty() && !inputs.empty()) {
    return makeError("no input_0.pb: give a test_data_set_N folder holding input_0.pb, input_1.pb, ...", folder.string());
  }
  return given;
}

void GivenInputs::applyTo(ShapeInferenceOptions& options) const {
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].kind == TestValue::Kind::Tensor) options.inputValues[names_[i]] = &values_[i].tensor;
  }
  for (const auto& [name, type] : sequenceTypes_) options.inputTypes[name] = type;
}

}  // namespace onyx
