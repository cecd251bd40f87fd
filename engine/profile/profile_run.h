#pragma once
// One profiled run of a model as the GUI's Run dialog asks for it: inputs (random, zeros, a test_data_set
// folder or .pb files), symbol bindings, warm-up and timed iterations, with progress and cancellation between
// iterations. Qt-free, so the CLI and tests drive the same code the dialog's worker runs.
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "profile/profile.h"

namespace onyx::profile {

enum class InputSource { Random, Zeros, TestDataSet, TensorFiles };

struct RunRequest {
  std::string backend = "cpu";  // one of availableBackends()
  int threads = exec::ThreadPool::physicalCoreCount();  // one per physical core
  bool adaptThreads = true;  // fewer while other processes keep cores busy (exec/busy_cores.h)
  SymBindings bindings;
  InputSource inputs = InputSource::Random;
  std::filesystem::path dataSet;                   // TestDataSet: a test_data_set_N folder
  std::vector<std::filesystem::path> tensorFiles;  // TensorFiles: one .pb per graph input, in order
  uint64_t seed = 1;
  int warmup = 1;
  int iterations = 5;
  bool profile = true;
};

// "auto" (the best device, CPU where none) and the backends this build can run.
std::vector<std::string> availableBackends();

// The symbols of the model's input shapes that a run needs bound ("batch", "sequence").
std::vector<std::string> inputSymbols(const Model& model);

// The inputs the request describes, by graph input name. Errors name the input or file and what to do.
Expected<exec::NamedValues> makeInputs(const Model& model, const RunRequest& request);

struct OutputSummary {
  std::string name;
  std::string type;  // "float32[1,1000]"
  int64_t elements = 0;
  bool numeric = false;  // min/max/mean and first values are set
  double min = 0, max = 0, mean = 0;
  std::vector<double> first;  // up to 8 values
};
OutputSummary summarizeOutput(const std::string& name, const exec::RunValue& value);

struct LatencyStats {
  std::vector<double> ms;  // per timed iteration, in order
  double median() const;
  double min() const;
  double max() const;
  double mean() const;
};

struct RunResult {
  LatencyStats latency;
  std::vector<OutputSummary> outputs;
  Profile profile;            // the timed iterations' events (empty when request.profile is false)
  exec::MemoryReport memory;  // the executor's memory plan after the runs
  exec::RunReport device;     // the last timed iteration's submits, waits, bytes moved and CPU nodes
  int threadsAsked = 0;       // the request's threads; device.threads says what the last iteration used
  bool adaptThreads = true;   // the request's
  std::string backendUsed;    // what "auto" resolved to
  std::string backendNote;    // why "auto" ran on the CPU when a device backend could not start, else empty
  bool cancelled = false;     // stopped between iterations: latency holds the iterations that ran
};

struct RunProgress {
  std::string phase;  // "warm-up", "run"
  int done = 0;       // iterations of this phase finished
  int total = 0;
};

// Builds the executor and runs. `progress` is called after each iteration (from the calling thread);
// `cancel` is read between iterations.
Expected<RunResult> runProfiled(const Model& model, const RunRequest& request,
                                const std::function<void(const RunProgress&)>& progress = {},
                                const std::atomic<bool>* cancel = nullptr);

}  // namespace onyx::profile
