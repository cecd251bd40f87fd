#pragma once
// Graph inputs given as real values for shape inference: a test_data_set_N folder whose input_K.pb is the
// K-th graph input that is not an initializer (the ONNX backend-test layout). With their contents known,
// shape-carrying inputs (Reshape targets, axes, sizes passed as graph inputs) resolve, not only their dims.
// One loader for the CLI (`onyx shapes --inputs`), the GUI's bind panel and the tests.
#include <filesystem>
#include <string>
#include <vector>

#include "ir/model.h"
#include "onnx/onnx_io.h"
#include "shapes/shape_inference.h"
#include "util/expected.h"

namespace onyx {

class GivenInputs {
 public:
  // Reads input_0.pb, input_1.pb, ... until the first missing number. An error names the file and the
  // graph input it was read for; more files than graph inputs is an error too.
  static Expected<GivenInputs> load(const Model& model, const std::filesystem::path& folder);

  // Points options.inputValues at the loaded tensors and gives sequence inputs their element type (with the
  // dims all elements share; a dim that differs becomes the symbol `seq_<input>_<dim>`). The options then
  // refer to this object, which must outlive the inference.
  void applyTo(ShapeInferenceOptions& options) const;

  size_t size() const { return values_.size(); }
  const std::string& inputName(size_t i) const { return names_[i]; }
  const TestValue& value(size_t i) const { return values_[i]; }

 private:
  std::vector<std::string> names_;  // graph input names, in file order
  std::vector<TestValue> values_;
  std::vector<std::pair<std::string, Type>> sequenceTypes_;
};

}  // namespace onyx
