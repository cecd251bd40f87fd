#pragma once
// A recorded profile, read back from a file or taken from a run: per-node events plus iteration marks, in
// the executor's event schema whatever produced it (our runs, our Chrome traces, ONNX Runtime's profiler).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "exec/profiler.h"
#include "util/expected.h"

namespace onyx {
class Model;
}

namespace onyx::profile {

enum class TraceFormat { Onyx, OnnxRuntime };

struct Profile {
  TraceFormat format = TraceFormat::Onyx;
  std::vector<exec::ProfileEvent> events;
  std::vector<exec::IterationMark> iterations;
  // Per event (same index): whether it names a node of the model it was mapped onto. Our own runs and
  // traces of the same model map by node id; foreign ones by name.
  std::vector<bool> mapped;

  static Profile fromProfiler(const exec::Profiler& profiler);
  int iterationCount() const;  // at least 1 when there are events
};

// Reads our Chrome trace JSON (`onyx run --profile`) or ONNX Runtime's profiler JSON (enableProfiling),
// telling them apart by content. Errors name the file and what is wrong with it.
Expected<Profile> readTrace(const std::filesystem::path& path);
Expected<Profile> parseTrace(std::string_view text, std::string_view source);

struct MappingStats {
  size_t events = 0;
  size_t mapped = 0;
  // Unmapped events of nodes the runtime created itself (ORT's NCHWc ReorderInput/ReorderOutput, Memcpy, and
  // "<op>_token_<k>" nodes of its rewrites): they have no counterpart in the model.
  size_t runtimeInserted = 0;
  std::vector<std::string> unmappedNames;  // distinct, in order of first appearance
  double mappedShare() const { return events ? double(mapped) / double(events) : 0; }
  // The share among events that stand for nodes of the model.
  double mappedShareOfModelNodes() const {
    size_t modelEvents = events - runtimeInserted;
    return modelEvents ? double(mapped) / double(modelEvents) : 0;
  }
};

// Resolves each event's node in `model`'s main graph: by name (ORT names fused nodes after their output
// value, "/relu/Relu_output_0_nchwc", which maps to that value's producer), then by node id for our traces
// whose names are empty. Sets event.node, opType (kept when the event has one) and Profile::mapped.
// Then sets each mapped event's scope (assignScopes).
MappingStats mapOntoModel(Profile& profile, const Model& model);

// Sets event.scope of every event that names a node of `model`'s main graph to that node's scope
// (scopePathOf): a PyTorch 2.x export's module path, which its names ("node_linear_3") do not carry.
void assignScopes(Profile& profile, const Model& model);

}  // namespace onyx::profile
