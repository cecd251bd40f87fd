#include "profile/run_defaults.h"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "onnx/onnx_io.h"

namespace onyx::views {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kBatch = 1;
constexpr int64_t kImageSide = 224;
constexpr int64_t kSequenceLength = 128;

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

bool containsAny(const std::string& text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return text.find(w) != std::string::npos; });
}

bool equalsAny(const std::string& text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return text == w; });
}

// The number after "test_data_set_", or -1.
long dataSetNumber(const fs::path& folder) {
  const std::string name = folder.filename().string();
  const std::string prefix = "test_data_set_";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) return -1;
  return std::stol(digits);
}

std::vector<const Value*> declaredInputs(const Model& model) {
  std::vector<const Value*> inputs;
  for (const Value* value : model.graph().inputs())
    if (!value->isInitializer()) inputs.push_back(value);
  return inputs;
}

std::string relativeToParent(const fs::path& file) {
  return (file.parent_path().filename() / file.filename()).string();
}

// The declared type with the bound symbols replaced by their values.
std::string boundTypeText(const Type& type, const SymBindings& bindings) {
  if (!type.isTensor() || !type.shape()) return type.toString();
  Shape shape;
  for (const Dim& dim : *type.shape()) {
    std::optional<int64_t> value = dim.isUnknown() ? std::nullopt : dim.expr().evaluate(bindings);
    shape.push_back(value ? Dim(*value) : dim);
  }
  return Type::tensor(type.elemType(), std::move(shape)).toString();
}

std::string dimsText(DataType dtype, const std::vector<int64_t>& dims) {
  Shape shape(dims.begin(), dims.end());
  return Type::tensor(dtype, std::move(shape)).toString();
}

}  // namespace

std::vector<fs::path> findTestDataSets(const fs::path& modelPath) {
  std::vector<fs::path> folders;
  std::error_code error;
  const fs::path dir = modelPath.has_parent_path() ? modelPath.parent_path() : fs::path(".");
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    if (it->is_directory(error) && dataSetNumber(it->path()) >= 0) folders.push_back(it->path());
  std::sort(folders.begin(), folders.end(),
            [](const fs::path& a, const fs::path& b) { return dataSetNumber(a) < dataSetNumber(b); });
  return folders;
}

int64_t typicalDimValue(std::string_view symbol, size_t index, size_t rank) {
  const std::string name = lowercase(symbol);
  if (containsAny(name, {"batch"}) || equalsAny(name, {"n", "b", "bs"})) return kBatch;
  if (containsAny(name, {"height", "width", "image", "img"}) || equalsAny(name, {"h", "w"})) return kImageSide;
  if (containsAny(name, {"seq", "len", "token", "time", "step", "position"}) || equalsAny(name, {"s", "t", "l"}))
    return kSequenceLength;
  if (index == 0) return kBatch;
  if (rank == 4 && index >= 2) return kImageSide;  // [N, C, H, W]
  if ((rank == 2 || rank == 3) && index == 1) return kSequenceLength;  // [batch, sequence(, features)]
  return 1;
}

SymBindings proposeBindings(const Model& model, const fs::path& dataSet) {
  SymBindings bindings;
  const std::vector<const Value*> inputs = declaredInputs(model);
  // Measured dims first: a data set's tensors are what the model will be fed.
  for (size_t k = 0; !dataSet.empty() && k < inputs.size(); ++k) {
    const Type& type = inputs[k]->type();
    if (!type.isTensor() || !type.shape()) continue;
    auto tensor = loadTensorFile(dataSet / ("input_" + std::to_string(k) + ".pb"));
    if (!tensor || tensor->dims().size() != type.shape()->size()) continue;
    for (size_t d = 0; d < tensor->dims().size(); ++d) {
      const Dim& dim = (*type.shape())[d];
      if (dim.isSymbolic() && dim.expr().isSymbol()) bindings.emplace(dim.expr().symbolName(), tensor->dims()[d]);
    }
  }
  for (const Value* input : inputs) {
    const Type& type = input->type();
    if (!type.isTensor() || !type.shape()) continue;
    const size_t rank = type.shape()->size();
    for (size_t d = 0; d < rank; ++d) {
      const Dim& dim = (*type.shape())[d];
      if (!dim.isSymbolic()) continue;
      for (const std::string& symbol : dim.expr().symbols())
        bindings.emplace(symbol, typicalDimValue(symbol, d, rank));  // keeps a value already there
    }
  }
  return bindings;
}

std::vector<std::string> describeFeed(const Model& model, const profile::RunRequest& request) {
  std::vector<std::string> lines;
  const std::vector<const Value*> inputs = declaredInputs(model);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Value& input = *inputs[k];
    std::string line = input.name() + ": ";
    switch (request.inputs) {
      case profile::InputSource::Random:
      case profile::InputSource::Zeros:
        line += boundTypeText(input.type(), request.bindings) +
                (request.inputs == profile::InputSource::Random ? ", random values" : ", zeros");
        break;
      case profile::InputSource::TestDataSet:
      case profile::InputSource::TensorFiles: {
        const fs::path file = request.inputs == profile::InputSource::TestDataSet
                                  ? request.dataSet / ("input_" + std::to_string(k) + ".pb")
                                  : (k < request.tensorFiles.size() ? request.tensorFiles[k] : fs::path());
        if (file.empty()) {
          line += "no file given";
          break;
        }
        auto tensor = input.type().isTensor() ? loadTensorFile(file) : Expected<Tensor>(makeError("not a tensor"));
        line += (tensor ? dimsText(tensor->dtype(), tensor->dims()) : boundTypeText(input.type(), request.bindings)) +
                " from " + relativeToParent(file);
        if (!fs::exists(file)) line += " (missing)";
        break;
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace onyx::views
