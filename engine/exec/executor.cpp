// The executor: makes the backends the caller names (through the backend registry), has the plan builder
// plan the model's graph and its bodies, and runs the plan (plan_runner.h) with the caller's inputs.
#include "exec/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string_view>

#include "exec/backend_registry.h"
#include "exec/busy_cores.h"
#include "exec/cpu/denormals.h"
#include "exec/cpu/cpu_isa.h"
#include "exec/graph_plan.h"
#include "exec/run_replay.h"
#include "exec/plan_builder.h"
#include "exec/plan_runner.h"
#include "ir/nesting.h"
#include "ir/verify.h"
#include "util/limits.h"

namespace onyx::exec {

Executor::Executor(const Model& model, ExecutorOptions options)
    : model_(model), options_(std::move(options)), pool_(options_.threads), tuner_(options_.tuneThreadsFrom) {
  BusyCores::shared();  // its first window starts now, before the first run
}

Executor::~Executor() = default;

Expected<std::unique_ptr<Executor>> Executor::create(const Model& model, ExecutorOptions options,
                                                     std::vector<std::unique_ptr<Backend>> extraBackends) {
  // An invalid ONYX_CPU_ISA stops here, before any kernel runs on an instruction set nobody asked for.
  if (const Expected<CpuIsa>& isa = configuredCpuIsa(); !isa) return isa.error();
  std::unique_ptr<Executor> executor(new Executor(model, std::move(options)));
  executor->backends_ = std::move(extraBackends);
  auto built = executor->build();
  if (!built) return built.error();
  return executor;
}

// The backends the options name, made through the registry unless the caller passed them, and the fallback
// last; the planning order is the options' order, then the fallback.
Expected<std::vector<Backend*>> Executor::makeBackends() {
  BackendRegistry& registry = BackendRegistry::builtin();
  const BackendSettings settings{model_, pool_, options_.device, options_.kernelVariant};
  for (const std::string& name : options_.backends) {
    if (name == options_.fallbackBackend) continue;
    bool given =
        std::any_of(backends_.begin(), backends_.end(),
                    [&](const std::unique_ptr<Backend>& backend) { return backend->name() == name; });
    if (given) continue;
    auto made = registry.create(name, settings);
    if (!made) return made.error();
    backends_.push_back(std::move(*made));
  }
  auto fallback = registry.create(options_.fallbackBackend, settings);
  if (!fallback) return fallback.error();
  if (!(*fallback)->usesHostMemory()) {
    return makeError("the fallback backend '" + options_.fallbackBackend +
                         "' must compute on host memory (it runs what the other backends do not)",
                     "executor");
  }
  backends_.push_back(std::move(*fallback));
  std::vector<Backend*> order;
  for (const std::string& name : options_.backends)
    for (const auto& backend : backends_)
      if (backend->name() == name && std::find(order.begin(), order.end(), backend.get()) == order.end())
        order.push_back(backend.get());
  if (std::find(order.begin(), order.end(), backends_.back().get()) == order.end())
    order.push_back(backends_.back().get());
  return order;
}

Expected<void> Executor::build() {
  // Planning recurses into bodies and function calls: a recursive function would never return.
  if (auto nesting = checkNesting(model_); !nesting) return nesting.error();
  // The loader keeps a broken model so it can be shown; running one is refused with verify()'s first error
  // (two nodes producing one value used to run, the second's result silently winning).
  for (const Diagnostic& diagnostic : verify(model_))
    if (diagnostic.severity == Diagnostic::Severity::Error) return makeError(diagnostic.message, diagnostic.where);
  auto order = makeBackends();
  if (!order) return order.error();
  PlanContext context{model_, std::move(*order)};
  context.fuseEpilogues = options_.fuseEpilogues;
  context.channelsLast = options_.channelsLast;
  context.channelBlocks = options_.channelBlocks && !std::getenv("ONYX_NO_CHANNEL_BLOCKS");
  context.foldConstants = options_.foldConstants;
  PlanBuilder builder(std::move(context), bodies_);
  auto plan = builder.build(model_.graph(), 0);
  if (!plan) return plan.error();
  main_ = std::move(*plan);
  return {};
}

Expected<void> Executor::validateInputs(const NamedValues& inputs) {
  bindings_.clear();
  const Graph& graph = model_.graph();
  for (const auto& [name, value] : inputs) {
    const onyx::Value* declared = graph.findValue(name);
    if (!declared || !declared->isGraphInput()) {
      std::string names;
      for (const onyx::Value* v : graph.inputs()) names += (names.empty() ? "" : ", ") + v->name();
      return makeError("the model has no input '" + name + "' (inputs: " + names + ")", name);
    }
  }
  for (const onyx::Value* v : graph.inputs()) {
    const RunValue* given = nullptr;
    for (const auto& [name, value] : inputs)
      if (name == v->name()) given = &value;
    if (!given) {
      if (v->isInitializer()) continue;
      if (v->type().kind() == Type::Kind::Optional) continue;
      return makeError("missing input '" + v->name() + "' (" + v->type().toString() + ")", v->name());
    }
    const Type& type = v->type();
    const auto* t = std::get_if<TensorValue>(given);
    if (type.isTensor() && t) {
      if (type.elemType() != DataType::Undefined && t->dtype() != type.elemType()) {
        return makeError(
            "input '" + v->name() + "' is " + t->describe() + " but the model expects " + type.toString(),
            v->name());
      }
      // An empty input's other dims size kernels' scratch (a TopK row of [0, 2^40]); a full one is already in memory.
      if (t->count() == 0)
        if (auto size = checkTensorSize(t->dims(), int64_t(elementBytes(t->dtype())), "input '" + v->name() + "'",
                                        v->name());
            !size)
          return size.error();
      if (type.shape()) {
        const Shape& shape = *type.shape();
        if (shape.size() != t->dims().size()) {
          return makeError("input '" + v->name() + "' has rank " + std::to_string(t->rank()) + " (" +
                               t->describe() + ") but the model expects " + type.toString(),
                           v->name());
        }
        for (size_t d = 0; d < shape.size(); ++d) {
          int64_t actual = t->dims()[d];
          if (auto fixed = shape[d].value()) {
            if (*fixed != actual) {
              return makeError("input '" + v->name() + "' has dim " + std::to_string(d) + " = " +
                                   std::to_string(actual) + " but the model fixes it to " +
                                   std::to_string(*fixed),
                               v->name());
            }
          } else if (shape[d].isSymbolic() && shape[d].expr().isSymbol()) {
            std::string symbol = shape[d].expr().symbolName();
            auto [it, inserted] = bindings_.emplace(symbol, actual);
            if (!inserted && it->second != actual) {
              return makeError("input '" + v->name() + "' binds " + symbol + " = " + std::to_string(actual) +
                                   " but an earlier input bound it to " + std::to_string(it->second),
                               v->name());
            }
          }
        }
      }
    } else if (type.isTensor() && !t) {
      return makeError("input '" + v->name() + "' must be a tensor, got " + describeValue(*given), v->name());
    }
  }
  return {};
}

namespace {

void addCounters(DeviceRunCounters& sum, const DeviceRunCounters& c) {
  sum.submits += c.submits;
  sum.waits += c.waits;
  sum.bytesUp += c.bytesUp;
  sum.bytesDown += c.bytesDown;
  sum.replays += c.replays;
}

// ExecutorOptions::sharedCores with ONYX_SHARED_CORES applied to Auto.
ExecutorOptions::SharedCores sharedCoresMode(ExecutorOptions::SharedCores asked) {
  using Mode = ExecutorOptions::SharedCores;
  static const Mode fromEnvironment = [] {
    const char* value = std::getenv("ONYX_SHARED_CORES");
    const std::string_view text = value ? value : "";
    return text == "0" ? Mode::Never : text == "1" ? Mode::Always : Mode::Auto;
  }();
  return asked == Mode::Auto ? fromEnvironment : asked;
}

// The given inputs' dims as one number (FNV-1a): runs of other dims tune their threads again.
uint64_t dimsSignature(const std::vector<const RunValue*>& given) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (const RunValue* v : given) {
    const auto* t = v ? std::get_if<TensorValue>(v) : nullptr;
    mix(t ? t->rank() : ~uint64_t(0));
    if (t)
      for (int64_t d : t->dims()) mix(uint64_t(d));
  }
  return h;
}

}  // namespace

Expected<std::vector<RunValue>> Executor::run(const NamedValues& inputs) {
  if (options_.validateInputs) {
    auto valid = validateInputs(inputs);
    if (!valid) return valid.error();
  }
  const Graph& graph = model_.graph();
  std::vector<const RunValue*> given(graph.inputs().size(), nullptr);
  for (size_t i = 0; i < graph.inputs().size(); ++i)
    for (const auto& [name, value] : inputs)
      if (name == graph.inputs()[i]->name()) given[i] = &value;
  if (replay_ && !options_.profile && replay_->fits(given)) return replayRun(given);
  replay_.reset();
  Frame frame{main_.get(), std::move(main_->keptSlots), nullptr};
  frame.slots.resize(main_->slotValue.size());
  // Kept from the last run: constants and shape arithmetic (the runner checks the latter still holds).
  for (size_t slot = 0; slot < frame.slots.size(); ++slot)
    if (!main_->isConstant[slot] && !main_->isShapeDerived[slot]) frame.slots[slot] = RunValue();
  for (size_t i = 0; i < graph.inputs().size(); ++i)  // an initializer's default unless given again
    frame.slots[size_t(main_->inputSlots[i])] = given[i] ? *given[i] : RunValue();
  Profiler* profiler = options_.profile ? &profiler_ : nullptr;
  if (profiler) profiler->beginIteration();
  lastRun_ = RunReport();
  const auto shared = sharedCoresMode(options_.sharedCores);
  BusyCores& busy = options_.busyCores ? *options_.busyCores : BusyCores::shared();
  if (options_.adaptThreads) {
    lastRun_.threads = busy.threadsFor(options_.threads);
    lastRun_.othersBusy = busy.othersBusy();
    // Left one free core: keep a second thread on a busy one, in tasks the first takes over from it. (With
    // no core free, the caller itself waits for slices: one thread.)
    lastRun_.sharedCores = lastRun_.threads == 1 && options_.threads >= 2 && busy.freeCores() == 1 &&
                           shared == ExecutorOptions::SharedCores::Auto;
    if (lastRun_.sharedCores) lastRun_.threads = 2;
  } else {
    // All the threads asked for, but on busy cores as a shared run: an OpenMP team would wait at every
    // node's end for its thread on a busy core, spinning (thread_pool.cpp) where a sleeping thread would
    // leave that core to others.
    lastRun_.threads = options_.threads;
    if (options_.threads >= 2 && shared == ExecutorOptions::SharedCores::Auto) {
      (void)busy.threadsFor(options_.threads);  // a fresh reading
      lastRun_.othersBusy = busy.othersBusy();
      lastRun_.sharedCores = lastRun_.othersBusy && busy.freeCores() < options_.threads;
    }
  }
  if (shared == ExecutorOptions::SharedCores::Always && options_.threads >= 2) {
    lastRun_.sharedCores = true;
    lastRun_.threads = 2;
  }
  // A quiet run of all the threads asked for, on host memory only: the tuner may halve it.
  const bool tuning = options_.adaptThreads && !lastRun_.sharedCores && lastRun_.threads == options_.threads &&
                      std::all_of(backends_.begin(), backends_.end(), [](const auto& b) { return b->usesHostMemory(); });
  if (tuning) {
    lastRun_.threads = tuner_.threadsFor(dimsSignature(given), options_.threads);
    lastRun_.threadsOnTrial = tuner_.tunes(options_.threads) && !tuner_.decision();
  }
  const auto started = std::chrono::steady_clock::now();
  struct EndRun {
    ThreadPool& pool;
    ~EndRun() { pool.endRun(); }
  } endRun{pool_};
  if (lastRun_.sharedCores) {
    pool_.beginSharedRun(lastRun_.threads);
  } else {
    pool_.beginRun(lastRun_.threads);
  }
  // Denormals flushed to zero on the caller and its OpenMP team for the run (exec/cpu/denormals.h).
  const DenormalsFlushed flushed(flushDenormalsByDefault(), lastRun_.sharedCores ? 1 : lastRun_.threads);
  for (const auto& backend : backends_) {
    (void)backend->takeRunCounters();  // work done before this run
    backend->beginRun();
  }
  const RunEnvironment env{bodies_, pool_, profiler, backends_.back()->name(), &lastRun_.hostNodes,
                           &lastRun_.channelBlockValues};
  auto result = runPlan(env, *main_, frame, options_.useArena, options_.arenaLimitBytes);
  main_->keptSlots = std::move(frame.slots);
  for (const auto& backend : backends_) {
    auto finished = backend->finishRun();
    if (!finished && result) result = finished.error();
    addCounters(lastRun_.device, backend->takeRunCounters());
  }
  if (profiler) profiler->endIteration();
  if (tuning && result)
    tuner_.record(lastRun_.threads,
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  lastRun_.threadChoice = tuner_.decision();
  if (result && !profiler) rememberForReplay(given, *result);
  return result;
}

// A run with all its device work in one replayed submit (the second run with these dims) may repeat
// without the walk (run_replay.h).
void Executor::rememberForReplay(const std::vector<const RunValue*>& given, const std::vector<RunValue>& outputs) {
  const DeviceRunCounters& c = lastRun_.device;
  if (c.submits != 1 || c.waits != 1 || c.replays != 1) return;
  if (const char* off = std::getenv("ONYX_REPLAY_RUNS"); off && std::string_view(off) == "0") return;  // A/B
  Backend* device = nullptr;
  for (const auto& backend : backends_) {
    if (backend->usesHostMemory()) continue;
    if (device) return;  // two devices
    device = backend.get();
  }
  if (!device) return;
  if (auto replay = RunReplay::of(*main_, *device, given, outputs))
    replay_ = std::make_unique<RunReplay>(std::move(*replay));
}

Expected<std::vector<RunValue>> Executor::replayRun(const std::vector<const RunValue*>& given) {
  lastRun_ = RunReport();
  lastRun_.threads = options_.threads;
  lastRun_.planWalked = false;
  for (const auto& backend : backends_) (void)backend->takeRunCounters();
  auto outputs = replay_->run(given);
  for (const auto& backend : backends_) addCounters(lastRun_.device, backend->takeRunCounters());
  if (!outputs) replay_.reset();
  return outputs;
}

MemoryReport Executor::memoryReport() const {
  MemoryReport report;
  const ArenaState* arena = main_ ? main_->lastArena : nullptr;
  if (!arena || !arena->planned) return report;
  report.arenaBytes = arena->plan.arenaBytes;
  report.peakBytes = arena->plan.peakBytes;
  report.heapFallbacks = arena->heapFallbacks;
  report.inPlaceCount = arena->plan.inPlaceCount;
  if (arena->plan.peakStep >= 0) {
    const Step& step = main_->steps[size_t(arena->plan.peakStep)];
    report.peakNode = step.node ? step.node->describe() : "transfer";
  }
  for (int r : arena->plan.aliveAtPeak)
    report.aliveAtPeak.push_back({arena->requests[size_t(r)].label, arena->requests[size_t(r)].bytes});
  report.buffers = arena->requests;
  report.offsets = arena->plan.offsets;
  report.peakStep = arena->plan.peakStep;
  for (const Step& step : main_->steps) {
    report.stepLabels.push_back(step.node ? step.node->describe() : "transfer");
    report.stepNodes.push_back(step.node ? step.node->id() : kNoNode);
  }
  return report;
}

std::vector<Assignment> Executor::assignments() const {
  std::vector<Assignment> out;
  for (const Step& step : main_->steps)
    if (step.node)
      out.push_back({step.node, std::string(step.backend->name()), std::string(step.prepared->variant()),
                     step.channelsLastOut, step.blocked16Out});
  return out;
}

std::vector<std::pair<std::string, std::string>> Executor::devices() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& backend : backends_) out.push_back({std::string(backend->name()), backend->deviceName()});
  return out;
}

int Executor::transferCount() const {
  return main_->transfers;
}

Expected<RunValue> randomInput(const onyx::Value& input, const SymBindings& bindings, uint64_t seed) {
  const Type& type = input.type();
  if (!type.isTensor())
    return makeError("cannot make a random value for input of type " + type.toString(), input.name());
  Dims dims;
  if (type.shape()) {
    for (const Dim& d : *type.shape()) {
      if (auto v = d.value()) {
        dims.push_back(*v);
      } else if (d.isSymbolic()) {
        auto value = d.expr().evaluate(bindings);
        if (!value) {
          std::string example;
          for (const std::string& symbol : d.expr().symbols())
            if (!bindings.count(symbol)) example += (example.empty() ? "" : ",") + symbol + "=SIZE";
          return makeError("input '" + input.name() + "' has dim " + d.toString() +
                               ", which needs a size for random inputs: give --bind " + example +
                               " (or real inputs with --inputs)",
                           input.name());
        }
        dims.push_back(*value);
      } else {
        dims.push_back(1);
      }
    }
  }
  // An element type the file made up has no size: a tensor of it would hold no bytes for its elements.
  if (!isKnownDataType(type.elemType()))
    return makeError("input '" + input.name() + "' is declared with element type " +
                         std::to_string(int(type.elemType())) +
                         ", which is not an ONNX element type: fix its type in the model",
                     input.name());
  // Declared dims and --bind values are the user's word, not the machine's: check them before allocating.
  auto size = checkTensorSize(dims, int64_t(elementBytes(type.elemType())),
                              "random input '" + input.name() + "' (" + type.toString() + ")", input.name());
  if (!size) return size.error();
  TensorValue t = TensorValue::allocate(type.elemType(), dims);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.count(); ++i) {
    switch (t.dtype()) {
      case DataType::Float:
        t.data<float>()[i] = uniform(rng);
        break;
      case DataType::Double:
        t.data<double>()[i] = uniform(rng);
        break;
      case DataType::Float16:
        t.data<Half>()[i] = Half(uniform(rng));
        break;
      case DataType::Int64:
        t.data<int64_t>()[i] = int64_t(rng() % 2);
        break;  // valid ids and masks
      case DataType::Int32:
        t.data<int32_t>()[i] = int32_t(rng() % 2);
        break;
      case DataType::Bool:
        t.data<bool>()[i] = rng() % 2;
        break;
      default:
        break;
    }
  }
  return RunValue(std::move(t));
}

}  // namespace onyx::exec
