#include "exec/conformance.h"

#include <algorithm>

#include "onnx/onnx_io.h"

namespace onyx::exec {

CaseResult runConformanceCase(const std::filesystem::path& caseDir, const ConformanceOptions& options) {
  namespace fs = std::filesystem;
  CaseResult result;
  result.name = caseDir.filename().string();
  auto fail = [&](std::string reason) {
    result.status = CaseResult::Status::Failed;
    result.reason = std::move(reason);
    return result;
  };
  auto model = loadModel(caseDir / "model.onnx");
  if (!model) return fail("load: " + model.error().toString());
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(caseDir))
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(entry.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    result.status = CaseResult::Status::Skipped;
    result.reason = "no test_data_set_N folder";
    return result;
  }
  auto executor = Executor::create(**model, options.executor);
  if (!executor) return fail(executor.error().toString());
  for (const fs::path& set : sets) {
    auto data = loadTestDataSet(**model, set);
    if (!data) return fail(set.filename().string() + ": " + data.error().toString());
    auto outputs = (*executor)->run(data->inputs);
    if (!outputs) return fail(set.filename().string() + ": " + outputs.error().toString());
    if (outputs->size() < data->outputs.size()) return fail(set.filename().string() + ": too few outputs");
    for (size_t k = 0; k < data->outputs.size(); ++k) {
      Comparison c = compareValues((*outputs)[k], data->outputs[k], options.tolerance);
      result.maxAbsError = std::max(result.maxAbsError, c.maxAbsError);
      if (!c.ok) {
        const Graph& graph = (*model)->graph();
        std::string name = k < graph.outputs().size() ? graph.outputs()[k]->name() : std::to_string(k);
        return fail(set.filename().string() + " output '" + name + "': " + c.reason);
      }
    }
  }
  return result;
}

std::vector<std::filesystem::path> findCases(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<fs::path> cases;
  if (fs::exists(root / "model.onnx")) {
    cases.push_back(root);
    return cases;
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  return cases;
}

}  // namespace onyx::exec
