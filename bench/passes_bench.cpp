// Each registered pass's time, alone on a fresh copy of the model, on the largest shared model and on a
// generated 10k-node transformer-like graph; then the whole default pipeline. The baseline measured in the
// same run is one symbolic shape inference of the same model (what the shape-aware passes start from).
// Usage: passes_bench [MODELS_FOLDER] [REPETITIONS]; default: $ONYX_TEST_DATA/models or ../shared/models.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "layout/synthetic_models.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"
#include "shapes/shape_inference.h"

namespace fs = std::filesystem;
using namespace onyx;

namespace {

using Factory = std::function<std::unique_ptr<Model>()>;

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Fastest of `repetitions` runs of `pipeline` on fresh copies; the node count after the last.
std::pair<double, size_t> timePipeline(const Factory& make, const std::vector<std::string>& pipeline,
                                       int repetitions) {
  double best = 1e30;
  size_t nodes = 0;
  for (int i = 0; i < repetitions; ++i) {
    auto model = make();
    passes::PassManager manager(*model);
    auto start = std::chrono::steady_clock::now();
    passes::PipelineResult result = manager.run(pipeline);
    best = std::min(best, seconds(start));
    if (result.error) {
      std::fprintf(stderr, "error: %s\n", result.error->toString().c_str());
      std::exit(1);
    }
    nodes = result.nodesAfter;
  }
  return {best, nodes};
}

void benchModel(const std::string& label, const Factory& make, int repetitions) {
  auto model = make();
  size_t nodes = passes::countNodes(*model);
  double baseline = 1e30;
  for (int i = 0; i < repetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    ShapeInference shapes = inferShapes(*model);
    baseline = std::min(baseline, seconds(start));
  }
  std::printf("\n%s: %zu nodes; baseline: shape inference %.2f ms\n", label.c_str(), nodes, baseline * 1e3);
  std::printf("%-34s %10s %12s %14s\n", "pass", "ms", "x baseline", "nodes after");
  for (const passes::PassInfo& info : passes::passRegistry()) {
    auto [time, after] = timePipeline(make, {info.name}, repetitions);
    std::printf("%-34s %10.2f %12.2f %14zu\n", info.name.c_str(), time * 1e3, time / baseline, after);
  }
  auto [time, after] = timePipeline(make, passes::defaultPipeline(), repetitions);
  std::printf("%-34s %10.2f %12.2f %14zu\n", "default pipeline", time * 1e3, time / baseline, after);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path folder;
  if (argc > 1)
    folder = argv[1];
  else if (const char* data = std::getenv("ONYX_TEST_DATA"))
    folder = fs::path(data) / "models";
  else
    folder = fs::path(ONYX_DEFAULT_MODELS);
  int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;

  // The largest shared model by node count.
  fs::path largest;
  size_t largestNodes = 0;
  if (fs::exists(folder)) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      fs::path path = entry.path() / "model.onnx";
      if (!fs::exists(path)) continue;
      auto model = loadModel(path);
      if (model && passes::countNodes(**model) > largestNodes) {
        largestNodes = passes::countNodes(**model);
        largest = path;
      }
    }
  }
  if (largest.empty()) {
    std::fprintf(stderr, "note: no shared models in %s; only the generated graph is measured\n",
                 folder.c_str());
  } else {
    benchModel(
        largest.parent_path().filename().string(),
        [&] {
          auto loaded = loadModel(largest);
          return std::move(loaded.value());
        },
        repetitions);
  }
  benchModel(
      "generated transformer-like graph",
      [] {
        return layout::makeNetworkLike({10000, 0});
      },
      repetitions);
  return 0;
}
