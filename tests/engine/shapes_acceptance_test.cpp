// Shape inference against real data: every ONNX backend test case (graph inputs bound to its test inputs)
// and the shared models (no unresolved values except downstream of data-dependent ops; expressions that
// evaluate to the test outputs' shapes). One test per corpus, listing failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "onnx/onnx_io.h"
#include "shapes/given_inputs.h"
#include "shapes/shape_inference.h"
#include "shapes/shape_report.h"
#include "support/test_data.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> sortedFiles(const fs::path& folder, const std::string& prefix) {
  std::vector<fs::path> files;
  if (!fs::exists(folder)) return files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) files.push_back(entry.path());
  }
  // input_10 after input_9
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    auto number = [](const fs::path& p) {
      std::string stem = p.stem().string();
      return std::stoi(stem.substr(stem.rfind('_') + 1));
    };
    return number(a) < number(b);
  });
  return files;
}

std::vector<Value*> realInputs(const Graph& graph) {
  std::vector<Value*> inputs;
  for (Value* input : graph.inputs()) {
    if (!input->isInitializer()) inputs.push_back(input);
  }
  return inputs;
}

// Why an inferred shape does not match the expected dims; empty when it does. Unknown dims are accepted only
// when they come from a data-dependent op.
std::string compareShape(const InferredValue* inferred, const std::vector<int64_t>& expected, const SymBindings& bindings) {
  if (!inferred) return "not inferred";
  if (!inferred->type.shape()) {
    if (inferred->rankOrigin && isDataDependent(inferred->rankOrigin.get())) return {};
    return "rank unknown (" + (inferred->rankOrigin ? inferred->rankOrigin->reason : std::string("no origin")) + ")";
  }
  const Shape& shape = *inferred->type.shape();
  std::string got = shapeToString(shape);
  if (shape.size() != expected.size()) return "rank " + std::to_string(shape.size()) + " " + got;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].isUnknown()) {
      if (isDataDependent(shape[i].origin().get())) continue;
      return "dim " + std::to_string(i) + " unknown: " + (shape[i].origin() ? shape[i].origin()->reason : "no origin") + " in " + got;
    }
    auto value = shape[i].expr().evaluate(bindings);
    if (value != expected[i]) return "got " + got + " (dim " + std::to_string(i) + " evaluates to " + (value ? std::to_string(*value) : "?") + ")";
  }
  return {};
}

std::string expectedString(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

// Runs one backend test case; returns the failure, or empty.
std::string checkBackendCase(const fs::path& folder) {
  auto model = loadModel(folder / "model.onnx");
  if (!model) return "load: " + model.error().toString();
  Graph& graph = (*model)->graph();
  fs::path data = folder / "test_data_set_0";
  auto outputFiles = sortedFiles(data, "output_");
  auto given = GivenInputs::load(**model, data);
  if (!given) return "inputs: " + given.error().toString();
  ShapeInferenceOptions options;
  given->applyTo(options);
  ShapeInference result = inferShapes(**model, options);
  if (const Diagnostic* error = result.firstError()) return "error: " + error->message + " [" + error->where + "]";
  for (size_t k = 0; k < outputFiles.size() && k < graph.outputs().size(); ++k) {
    const Value* output = graph.outputs()[k];
    auto expected = loadTestValueFile(outputFiles[k], output->type());
    if (!expected) return "output " + std::to_string(k) + ": " + expected.error().toString();
    const InferredValue* inferred = result.find(output);
    std::string mismatch;
    if (expected->kind == TestValue::Kind::Tensor) {
      mismatch = compareShape(inferred, expected->tensor.dims(), {});
      if (!mismatch.empty()) mismatch += ", expected " + expectedString(expected->tensor.dims());
    } else if (!inferred || inferred->type.isNone()) {
      mismatch = "no type for a non-tensor output";
    } else if (expected->kind == TestValue::Kind::Sequence || expected->kind == TestValue::Kind::Optional) {
      const Type& type = inferred->type;
      if (type.kind() != Type::Kind::Sequence && type.kind() != Type::Kind::Optional && !type.isTensor()) {
        mismatch = "expected a sequence or optional, got " + type.toString();
      }
      const Type& element = type.isTensor() ? type : type.element();
      for (const TestValue& item : expected->elements) {
        if (item.kind != TestValue::Kind::Tensor || !element.isTensor() || !element.shape()) continue;
        const Shape& shape = *element.shape();
        if (shape.size() != item.tensor.dims().size()) {
          mismatch = "element rank " + shapeToString(shape);
          break;
        }
        for (size_t d = 0; d < shape.size(); ++d) {
          if (shape[d].isStatic() && shape[d].value() != item.tensor.dims()[d]) mismatch = "element " + shapeToString(shape);
        }
      }
    }
    if (!mismatch.empty()) return "output '" + output->name() + "': " + mismatch;
  }
  return {};
}

TEST(ShapeAcceptance, BackendTestCasesInferTheirOutputShapes) {
  ONYX_REQUIRE_SHARED(root, "onnx-backend-data");
  std::map<std::string, std::pair<int, int>> counts;  // folder -> passed, total
  std::vector<std::string> failures;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(root / suite)) cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    for (const fs::path& folder : cases) {
      std::string failure = checkBackendCase(folder);
      auto& [passed, total] = counts[suite];
      ++total;
      if (failure.empty()) ++passed;
      else failures.push_back(std::string(suite) + "/" + folder.filename().string() + ": " + failure);
    }
  }
  for (const auto& [suite, count] : counts) {
    std::cout << "[shapes] " << suite << ": " << count.first << " of " << count.second << " cases infer their output shapes\n";
  }
  for (const std::string& failure : failures) std::cout << "[shapes] FAIL " << failure << "\n";
  EXPECT_EQ(counts["node"].first, counts["node"].second);
  EXPECT_EQ(counts["pytorch-converted"].first, counts["pytorch-converted"].second);
  EXPECT_EQ(counts["pytorch-operator"].first, counts["pytorch-operator"].second);
  EXPECT_EQ(counts["simple"].first, counts["simple"].second);
}

TEST(ShapeAcceptance, SharedModelsResolveEveryValueAndTheExpressionsAreRight) {
  ONYX_REQUIRE_SHARED(root, "models");
  std::vector<fs::path> models;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  ASSERT_FALSE(models.empty());
  for (const fs::path& folder : models) {
    std::string name = folder.filename().string();
    auto model = loadModel(folder / "model.onnx");
    ASSERT_TRUE(model) << name << ": " << model.error().toString();
    ShapeInference symbolic = inferShapes(**model);
    EXPECT_FALSE(symbolic.hasErrors()) << name << ": " << symbolic.firstError()->message;
    ShapeReport report = buildShapeReport(**model, symbolic);
    std::cout << "[shapes] " << name << ": " << summaryLine(report.summary) << "\n";
    for (const ShapeRow& row : report.rows) {
      EXPECT_TRUE(!row.unresolved || row.dataDependent)
          << name << ": " << row.value->name() << " " << row.shape << " unresolved: "
          << (row.unknownOrigins[0] ? row.unknownOrigins[0]->opType + ": " + row.unknownOrigins[0]->reason : "no origin");
    }
    for (const char* set : {"test_data_set_0", "test_data_set_1"}) {
      auto inputs = realInputs((*model)->graph());
      auto inputFiles = sortedFiles(folder / set, "input_");
      auto outputFiles = sortedFiles(folder / set, "output_");
      SymBindings bindings;
      for (size_t i = 0; i < inputs.size() && i < inputFiles.size(); ++i) {
        auto tensor = loadTensorFile(inputFiles[i]);
        ASSERT_TRUE(tensor) << tensor.error().toString();
        const auto& declared = inputs[i]->type().shape();
        ASSERT_TRUE(declared && declared->size() == tensor->dims().size()) << name << " input " << i;
        for (size_t d = 0; d < declared->size(); ++d) {
          if ((*declared)[d].isSymbolic()) bindings[(*declared)[d].expr().symbolName()] = tensor->dims()[d];
        }
      }
      const auto& outputs = (*model)->graph().outputs();
      for (size_t k = 0; k < outputs.size() && k < outputFiles.size(); ++k) {
        auto expected = loadTensorFile(outputFiles[k]);
        ASSERT_TRUE(expected) << expected.error().toString();
        std::string mismatch = compareShape(symbolic.find(outputs[k]), expected->dims(), bindings);
        EXPECT_EQ(mismatch, "") << name << "/" << set << " output '" << outputs[k]->name() << "', expected "
                                << expectedString(expected->dims());
      }
    }
  }
}

}  // namespace
}  // namespace onyx
