// `onyx shapes MODEL`: symbolic shape inference, with the unresolved dims explained by their origin; with
// --inputs, graph inputs carry the values of a test case's tensors.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/output_paths.h"
#include "onnx/onnx_io.h"
#include "onnx/reference_shapes.h"
#include "shapes/given_inputs.h"
#include "shapes/shape_report.h"
#include "shapes/shape_rules.h"
#include "shapes/write_back.h"

namespace onyx::cli {

namespace {

struct ShapesOptions {
  std::string model;
  std::string bind;
  std::string inputs;
  bool json = false;
  std::string write;
  bool compareOnnx = false;
  std::string rules;
};

// "batch=1,sequence=128" -> bindings; an error naming the bad entry.
Expected<SymBindings> parseBindings(const std::string& text) {
  SymBindings bindings;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t comma = text.find(',', start);
    std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t equals = entry.find('=');
    char* end = nullptr;
    long long value = equals == std::string::npos ? 0 : std::strtoll(entry.c_str() + equals + 1, &end, 10);
    if (equals == std::string::npos || equals == 0 || !end || *end != '\0' || equals + 1 == entry.size() || value < 0) {
      return makeError("--bind expects NAME=SIZE[,NAME=SIZE...] with sizes >= 0, got '" + entry + "'");
    }
    bindings[entry.substr(0, equals)] = value;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bindings;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", seconds * 1000.0);
  return text;
}

int runShapes(const ShapesOptions& options) {
  auto bindings = parseBindings(options.bind);
  if (!bindings) {
    std::cerr << "error: " << bindings.error().message << "\n";
    return kExitUsage;
  }
  ShapeRules rules;
  if (!options.rules.empty()) {
    auto loaded = ShapeRules::load(options.rules);
    if (!loaded) return reportError(options.rules, loaded.error());
    rules = std::move(*loaded);
  }
  auto model = loadModel(options.model);
  if (!model) return reportError(options.model, model.error());
  if (!options.write.empty()) {
    std::vector<PathRole> reads{{"the model", options.model}, {"the rules file", options.rules}};
    for (PathRole& file : folderInputs("the --inputs file", options.inputs)) reads.push_back(std::move(file));
    for (PathRole& file : externalDataInputs(**model)) reads.push_back(std::move(file));
    if (auto spared = checkOutputsSpareInputs({{"--write", options.write}}, reads); !spared)
      return reportError(options.write, spared.error());
  }

  ShapeInferenceOptions inferenceOptions;
  inferenceOptions.bindings = *bindings;
  std::optional<GivenInputs> given;
  if (!options.inputs.empty()) {
    auto loaded = GivenInputs::load(**model, options.inputs);
    if (!loaded) return reportError(options.model, loaded.error());
    given = std::move(*loaded);
    given->applyTo(inferenceOptions);
  }
  inferenceOptions.rules = options.rules.empty() ? nullptr : &rules;
  auto start = std::chrono::steady_clock::now();
  ShapeInference inference = inferShapes(**model, inferenceOptions);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ShapeReport report = buildShapeReport(**model, inference);

  std::string comparison;
  std::string comparisonJson;
  if (options.compareOnnx) {
    // Fastest of a few runs for both, so one-time set-up (onnx registering its schemas) does not count.
    constexpr int kRuns = 3;
    for (int i = 1; i < kRuns; ++i) {
      auto again = std::chrono::steady_clock::now();
      ShapeInference repeated = inferShapes(**model, inferenceOptions);
      seconds = std::min(seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count());
    }
    auto reference = referenceShapeInference(options.model, kRuns);
    if (!reference) return reportError(options.model, reference.error());
    comparison = "onnx:  unresolved " + std::to_string(reference->unresolved) + " of " + std::to_string(reference->values) +
                 " values in " + milliseconds(reference->seconds) + " (fastest of " + std::to_string(kRuns) + " runs)" +
                 (reference->warning.empty() ? "" : " (InferShapes stopped: " + reference->warning + ")") + "\n" +
                 "onyx:  unresolved " + std::to_string(report.summary.unresolved) + " of " +
                 std::to_string(report.summary.values) + " values in " + milliseconds(seconds) + " (fastest of " +
                 std::to_string(kRuns) + " runs)\n";
    comparisonJson = ",\n  \"compare_onnx\": {\"onnx_unresolved\": " + std::to_string(reference->unresolved) +
                     ", \"onnx_values\": " + std::to_string(reference->values) +
                     ", \"onnx_ms\": " + std::to_string(reference->seconds * 1000.0) +
                     ", \"onyx_unresolved\": " + std::to_string(report.summary.unresolved) +
                     ", \"onyx_values\": " + std::to_string(report.summary.values) +
                     ", \"onyx_ms\": " + std::to_string(seconds * 1000.0) + "}";
  }

  if (options.json) {
    std::string json = reportJson(report, inference);
    if (!comparisonJson.empty()) json.insert(json.rfind("\n}"), comparisonJson);
    std::cout << json;
  } else {
    std::cout << reportText(report) << comparison;
  }

  if (const Diagnostic* error = inference.firstError()) {
    return reportError(options.model, Error{error->message, error->where});
  }
  if (!options.write.empty()) {
    writeBack(**model, inference);
    auto saved = saveModel(**model, options.write);
    if (!saved) return reportError(options.write, saved.error());
  }
  return kExitOk;
}

}  // namespace

Command shapesCommand() {
  return {"shapes", "Infer symbolic shapes and explain every dim that stays unknown",
          [](CLI::App& app) -> std::function<int()> {
            auto options = std::make_shared<ShapesOptions>();
            app.add_option("model", options->model, "ONNX model file")->required();
            app.add_option("--bind", options->bind, "Fix graph-input symbols to sizes: batch=1,sequence=128");
            app.add_option("--inputs", options->inputs,
                           "A test_data_set_N folder: infer with the values of its input_K.pb, not only their dims");
            app.add_flag("--json", options->json, "Print the result as JSON");
            app.add_option("--write", options->write, "Save the model with the inferred shapes as value_info");
            app.add_flag("--compare-onnx", options->compareOnnx, "Also run onnx's InferShapes and compare");
            app.add_option("--rules", options->rules,
                           "Shape rules for unknown ops, one per line: `domain::Op: out0 = in0; out1 = [in0[0], 4]`");
            return [options] { return runShapes(*options); };
          }};
}

}  // namespace onyx::cli
