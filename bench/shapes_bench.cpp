// Onyx's symbolic shape inference against onnx 1.12's InferShapes on each shared model, in one run.
// Prints per-model times (fastest of N runs, parsing excluded for both), unresolved counts and the ratio.
// Usage: shapes_bench [MODELS_FOLDER] [REPETITIONS]; default: $ONYX_TEST_DATA/models or ../shared/models.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "onnx/onnx_io.h"
#include "onnx/reference_shapes.h"
#include "shapes/shape_inference.h"
#include "shapes/shape_report.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  fs::path folder;
  if (argc > 1) folder = argv[1];
  else if (const char* data = std::getenv("ONYX_TEST_DATA")) folder = fs::path(data) / "models";
  else folder = fs::path(ONYX_DEFAULT_MODELS);
  int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  if (!fs::exists(folder)) {
    std::fprintf(stderr, "error: %s: models folder not found (pass it as the first argument)\n", folder.c_str());
    return 1;
  }
  std::vector<fs::path> models;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path() / "model.onnx");
  }
  std::sort(models.begin(), models.end());
  std::printf("%-32s %7s %10s %10s %7s %14s %14s\n", "model", "nodes", "onyx ms", "onnx ms", "ratio", "onyx unresolved",
              "onnx unresolved");
  double totalOurs = 0, totalTheirs = 0;
  for (const fs::path& path : models) {
    auto model = onyx::loadModel(path);
    if (!model) {
      std::fprintf(stderr, "error: %s: %s\n", path.c_str(), model.error().toString().c_str());
      return 1;
    }
    double ours = 1e30;
    onyx::ShapeInference last;
    for (int i = 0; i < repetitions; ++i) {
      auto start = std::chrono::steady_clock::now();
      onyx::ShapeInference result = onyx::inferShapes(**model);
      ours = std::min(ours, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (i + 1 == repetitions) last = std::move(result);
    }
    auto reference = onyx::referenceShapeInference(path, repetitions);
    if (!reference) {
      std::fprintf(stderr, "error: %s: %s\n", path.c_str(), reference.error().toString().c_str());
      return 1;
    }
    auto report = onyx::buildShapeReport(**model, last);
    totalOurs += ours;
    totalTheirs += reference->seconds;
    std::string name = path.parent_path().filename().string();
    std::printf("%-32s %7zu %10.3f %10.3f %7.3f %8zu/%-5zu %8zu/%-5zu\n", name.c_str(), (*model)->graph().nodeCount(),
                ours * 1e3, reference->seconds * 1e3, ours / reference->seconds, report.summary.unresolved,
                report.summary.values, reference->unresolved, reference->values);
  }
  std::printf("%-32s %7s %10.3f %10.3f %7.3f   (onyx time / onnx time; target <= 0.5)\n", "total", "", totalOurs * 1e3,
              totalTheirs * 1e3, totalOurs / totalTheirs);
  return 0;
}
