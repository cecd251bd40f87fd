#pragma once
// Runs ONNX-backend-style cases: a folder with model.onnx and test_data_set_N/{input,output}_K.pb.
#include <filesystem>
#include <string>
#include <vector>

#include "exec/compare.h"
#include "exec/executor.h"

namespace onyx::exec {

struct CaseResult {
  enum class Status { Passed, Failed, Skipped };
  std::string name;  // folder name
  Status status = Status::Passed;
  std::string reason;  // why it failed or was skipped
  double maxAbsError = 0;
};

struct ConformanceOptions {
  ExecutorOptions executor;
  Tolerance tolerance;  // rtol 1e-3, atol 1e-7 as the ONNX backend suite
};

CaseResult runConformanceCase(const std::filesystem::path& caseDir, const ConformanceOptions& options);

// Case folders under `root` (folders holding model.onnx), sorted by name.
std::vector<std::filesystem::path> findCases(const std::filesystem::path& root);

}  // namespace onyx::exec
