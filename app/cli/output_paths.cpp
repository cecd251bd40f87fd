#include "cli/output_paths.h"

#include <filesystem>

#include "onnx/onnx_io.h"

namespace onyx::cli {

namespace fs = std::filesystem;

namespace {

// The file a path names once symlinks and `..` are resolved; an output need not exist yet.
fs::path realPath(const std::string& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) return fs::path(path).lexically_normal();
  fs::path real = fs::weakly_canonical(absolute, error);
  return error ? absolute.lexically_normal() : real;
}

bool sameFile(const std::string& a, const std::string& b) {
  if (realPath(a) == realPath(b)) return true;
  std::error_code error;  // hard links: two names, one file
  return fs::exists(a, error) && fs::exists(b, error) && fs::equivalent(a, b, error);
}

}  // namespace

Expected<void> checkOutputsSpareInputs(const std::vector<PathRole>& outputs, const std::vector<PathRole>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const PathRole& output = outputs[i];
    if (output.path.empty()) continue;
    for (const PathRole& input : inputs)
      if (!input.path.empty() && sameFile(output.path, input.path))
        return makeError(output.role + " " + output.path + " is " + input.role + " " + input.path +
                         ", which this command reads; onyx never writes over its inputs: give another name "
                         "(nothing was written)");
    for (size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && sameFile(output.path, outputs[j].path))
        return makeError(output.role + " " + output.path + " is also " + outputs[j].role +
                         ": two outputs cannot share one file; give each its own name (nothing was written)");
  }
  return {};
}

std::vector<PathRole> externalDataInputs(const Model& model) {
  std::vector<PathRole> roles;
  for (const fs::path& file : externalDataFiles(model)) roles.push_back({"the model's external data file", file.string()});
  return roles;
}

std::vector<PathRole> folderInputs(const std::string& role, const std::string& folder) {
  std::vector<PathRole> roles;
  std::error_code error;
  if (folder.empty() || !fs::is_directory(folder, error)) return roles;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.is_regular_file(error)) roles.push_back({role, entry.path().string()});
  return roles;
}

}  // namespace onyx::cli
