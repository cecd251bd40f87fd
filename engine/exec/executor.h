#pragma once
// Runs a model: makes the backends the options name (exec/backend_registry.h), plans the graph and its bodies
// (exec/plan_builder.h: schedule, placement with transfers, folds, epilogues, layouts, liveness), and runs
// the plan (exec/plan_runner.h) with an arena for the intermediates and per-node profiling.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/backend.h"
#include "exec/memory_planner.h"
#include "exec/profiler.h"
#include "exec/thread_pool.h"
#include "exec/thread_tuner.h"
#include "ir/model.h"

namespace onyx::exec {

class BusyCores;  // busy_cores.h

struct ExecutorOptions {
  // Backends in preference order, by registered name (BackendRegistry); the fallback is always added last.
  std::vector<std::string> backends = {"cpu"};
  // The host backend that runs every node the others do not.
  std::string fallbackBackend = "cpu";
  std::string device;  // Vulkan device: index or part of its name; "" the best one (or ONYX_VULKAN_DEVICE)
  int threads = ThreadPool::physicalCoreCount();  // one per physical core: SMT siblings share its units
  // Run with fewer threads than `threads` while other processes keep cores busy (exec/busy_cores.h):
  // statically split kernels would wait for the thread that shares its core.
  bool adaptThreads = true;
  // With adaptThreads, runs asked for this many threads or more try half of them in the first runs and keep
  // half where all were not faster (exec/thread_tuner.h); 0: never. ONYX_TUNE_THREADS sets the default.
  int tuneThreadsFrom = ThreadTuner::fromEnvironment();
  // What adaptThreads reads: nullptr for the process's sensor (BusyCores::shared()); tests pass their own.
  BusyCores* busyCores = nullptr;
  // Runs left one free core (adaptThreads) keep a second thread on a busy core in tasks the first takes over
  // (ThreadPool::beginSharedRun), and runs of fixed threads (adaptThreads off) left fewer free cores than
  // threads run all of them that way: Auto does that, Never runs the former on one thread and the latter as
  // an OpenMP team, Always makes every run with two or more threads a shared one of 2 (tests, benchmarks).
  // ONYX_SHARED_CORES=0 or 1 turns Auto into Never or Always.
  enum class SharedCores { Auto, Never, Always };
  SharedCores sharedCores = SharedCores::Auto;
  std::string kernelVariant;    // "" best available; "reference" pins the oracle kernels
  bool useArena = true;         // plan intermediates into one arena after the first run
  int64_t arenaLimitBytes = 0;  // 0: no limit; otherwise runs needing more fail, naming the node
  bool profile = false;
  bool validateInputs = true;
  // Let kernels compute the element-wise nodes after them in their output pass (Conv + Relu/Clip/SiLU/Add).
  bool fuseEpilogues = true;
  // Conv outputs stay channels-last (oneDNN's preferred layout) while every reader takes that layout.
  bool channelsLast = true;
  // Of those, a Conv output whose readers are all Convs (data input or residual) stays in the channel
  // blocks of 16 that oneDNN's Winograd convolutions read and write (TensorValue::blocked16), instead of
  // a reorder to channels-last and back. ONYX_NO_CHANNEL_BLOCKS turns it off.
  bool channelBlocks = true;
  // Nodes that read only constants run once, in the first run; later runs reuse their outputs.
  bool foldConstants = true;
};

struct MemoryReport {
  int64_t arenaBytes = 0;
  int64_t peakBytes = 0;
  int64_t heapFallbacks = 0;  // buffers that did not fit their planned slot in the last run
  int inPlaceCount = 0;
  std::string peakNode;                                      // node running at the peak
  std::vector<std::pair<std::string, int64_t>> aliveAtPeak;  // tensor label, bytes
  // The plan itself, for the memory view's liveness timeline: every planned buffer (its steps, bytes and
  // label), its offset in the arena (same index), and a label per step of the main graph's schedule.
  std::vector<BufferRequest> buffers;
  std::vector<int64_t> offsets;
  std::vector<std::string> stepLabels;
  std::vector<NodeId> stepNodes;  // the node of each step, kNoNode for an inserted transfer
  int peakStep = -1;
};

// What the last run did besides computing: per device backend, its queue submits, host waits and bytes
// moved; and the nodes that ran on the host while a device backend was in use, with why.
struct RunReport {
  DeviceRunCounters device;  // summed over the device backends in use
  int threads = 0;           // CPU threads the run used (ExecutorOptions::adaptThreads)
  std::optional<double> othersBusy;  // cores other processes kept busy, where measured
  bool sharedCores = false;  // the run shared a busy core (ThreadPool::beginSharedRun)
  // All the threads asked for against half, once the first runs have timed both (ExecutorOptions::tuneThreadsFrom).
  std::optional<ThreadTuner::Decision> threadChoice;
  bool threadsOnTrial = false;  // the tuner chose this run's threads to time them, before its decision
  int channelBlockValues = 0;  // values written in channel blocks of 16 (ExecutorOptions::channelBlocks)
  std::vector<HostNodeRun> hostNodes;
  // False when the run repeated the last one's recorded device work without walking the plan (run_replay.h).
  bool planWalked = true;
};

struct Assignment {
  const Node* node;
  std::string backend;
  std::string variant;
  bool channelsLastOutput = false;  // output 0 may stay channels-last (ExecutorOptions::channelsLast)
  bool channelBlocksOutput = false;  // or in channel blocks of 16 (ExecutorOptions::channelBlocks)
};

class GraphPlan;  // per graph (main graph and each body), in graph_plan.h
class RunReplay;  // run_replay.h

using NamedValues = std::vector<std::pair<std::string, RunValue>>;

class Executor {
 public:
  // `extraBackends`: backends the options can name besides the registered ones (tests pass fakes).
  static Expected<std::unique_ptr<Executor>> create(const Model& model, ExecutorOptions options = {},
                                                    std::vector<std::unique_ptr<Backend>> extraBackends = {});
  ~Executor();

  // Runs the main graph. Inputs by name; graph inputs with an initializer may be omitted. Returns the graph
  // outputs in order. Errors name the node and input.
  Expected<std::vector<RunValue>> run(const NamedValues& inputs);

  const Model& model() const { return model_; }
  Profiler& profiler() { return profiler_; }
  ThreadPool& pool() { return pool_; }
  // Symbol values bound from the last run's inputs ("batch" -> 1).
  const SymBindings& bindings() const { return bindings_; }
  MemoryReport memoryReport() const;
  // Which backend and kernel each node of the main graph runs on.
  std::vector<Assignment> assignments() const;
  int transferCount() const;
  const RunReport& lastRunReport() const { return lastRun_; }
  // The device each backend in use runs on, preference order: {"vulkan", "llvmpipe (...)"}, {"cpu", "cpu"}.
  std::vector<std::pair<std::string, std::string>> devices() const;

 private:
  Executor(const Model& model, ExecutorOptions options);
  Expected<std::vector<Backend*>> makeBackends();
  Expected<void> build();
  Expected<void> validateInputs(const NamedValues& inputs);
  void rememberForReplay(const std::vector<const RunValue*>& given, const std::vector<RunValue>& outputs);
  Expected<std::vector<RunValue>> replayRun(const std::vector<const RunValue*>& given);

  const Model& model_;
  ExecutorOptions options_;
  ThreadPool pool_;
  Profiler profiler_;
  std::vector<std::unique_ptr<Backend>> backends_;  // the fallback last
  std::unique_ptr<GraphPlan> main_;
  std::map<const Graph*, std::unique_ptr<GraphPlan>> bodies_;
  SymBindings bindings_;
  RunReport lastRun_;
  ThreadTuner tuner_;
  std::unique_ptr<RunReplay> replay_;  // the last run, when it can repeat without walking the plan
};

// Reads `name=value` symbol bindings and random inputs for `onyx run --random`.
Expected<RunValue> randomInput(const Value& input, const SymBindings& bindings, uint64_t seed);

}  // namespace onyx::exec
