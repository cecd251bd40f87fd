#include "profile/profile_run.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <set>

#include "exec/backend_registry.h"
#include "exec/compare.h"
#include "onnx/onnx_io.h"

namespace onyx::profile {

std::vector<std::string> availableBackends() {
  // "auto" first, then every backend this build registers (cpu, vulkan); whether a device is present is
  // known only when a run tries it.
  std::vector<std::string> names{"auto"};
  for (const std::string& name : exec::BackendRegistry::builtin().names()) names.push_back(name);
  return names;
}

std::vector<std::string> inputSymbols(const Model& model) {
  std::set<std::string> symbols;
  for (const Value* input : model.graph().inputs()) {
    if (input->isInitializer() || !input->type().isTensor() || !input->type().shape()) continue;
    for (const Dim& d : *input->type().shape())
      if (d.isSymbolic())
        for (std::string& s : d.expr().symbols()) symbols.insert(std::move(s));
  }
  return {symbols.begin(), symbols.end()};
}

Expected<exec::NamedValues> makeInputs(const Model& model, const RunRequest& request) {
  std::vector<const Value*> declared;
  for (const Value* v : model.graph().inputs())
    if (!v->isInitializer()) declared.push_back(v);
  exec::NamedValues inputs;
  switch (request.inputs) {
    case InputSource::TestDataSet: {
      if (!std::filesystem::is_directory(request.dataSet))
        return makeError("not a test_data_set folder: choose a folder holding input_0.pb ...",
                         request.dataSet.string());
      auto set = exec::loadTestDataSet(model, request.dataSet);
      if (!set) return set.error();
      return std::move(set->inputs);
    }
    case InputSource::TensorFiles: {
      if (request.tensorFiles.size() != declared.size())
        return makeError("given " + std::to_string(request.tensorFiles.size()) +
                         " tensor files but the model has " + std::to_string(declared.size()) +
                         " inputs: give one .pb per input, in order");
      for (size_t k = 0; k < declared.size(); ++k) {
        auto value = loadTestValueFile(request.tensorFiles[k], declared[k]->type());
        if (!value) return value.error();
        auto run = exec::toRunValue(*value, declared[k]->type());
        if (!run) return run.error();
        inputs.push_back({declared[k]->name(), std::move(*run)});
      }
      return inputs;
    }
    case InputSource::Random:
    case InputSource::Zeros: {
      uint64_t seed = request.seed;
      for (const Value* v : declared) {
        auto value = exec::randomInput(*v, request.bindings, seed++);
        if (!value) return value.error();
        if (request.inputs == InputSource::Zeros)
          if (auto* tensor = std::get_if<exec::TensorValue>(&*value);
              tensor && tensor->dtype() != DataType::String)
            std::memset(tensor->raw(), 0, tensor->byteSize());
        inputs.push_back({v->name(), std::move(*value)});
      }
      return inputs;
    }
  }
  return inputs;
}

OutputSummary summarizeOutput(const std::string& name, const exec::RunValue& value) {
  OutputSummary out;
  out.name = name;
  const auto* tensor = std::get_if<exec::TensorValue>(&value);
  if (!tensor) {
    out.type = exec::describeValue(value);
    return out;
  }
  out.type = tensor->describe();
  out.elements = tensor->count();
  DataType t = tensor->dtype();
  out.numeric = t != DataType::String && t != DataType::Undefined && out.elements > 0;
  if (!out.numeric) return out;
  out.min = out.max = tensor->doubleAt(0);
  double sum = 0;
  for (int64_t i = 0; i < out.elements; ++i) {
    double v = tensor->doubleAt(i);
    out.min = std::min(out.min, v);
    out.max = std::max(out.max, v);
    sum += v;
    if (i < 8) out.first.push_back(v);
  }
  out.mean = sum / double(out.elements);
  return out;
}

double LatencyStats::median() const {
  if (ms.empty()) return 0;
  std::vector<double> v = ms;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double LatencyStats::min() const {
  return ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
}
double LatencyStats::max() const {
  return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
}
double LatencyStats::mean() const {
  return ms.empty() ? 0 : std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
}

Expected<RunResult> runProfiled(const Model& model, const RunRequest& request,
                                const std::function<void(const RunProgress&)>& progress,
                                const std::atomic<bool>* cancel) {
  auto backends = availableBackends();
  if (std::find(backends.begin(), backends.end(), request.backend) == backends.end()) {
    std::string choices;
    for (const std::string& b : backends) choices += (choices.empty() ? "" : ", ") + b;
    return makeError("backend '" + request.backend + "' is not in this build: choose one of " + choices);
  }
  if (request.iterations < 1) return makeError("iterations must be at least 1");
  auto inputs = makeInputs(model, request);
  if (!inputs) return inputs.error();

  exec::ExecutorOptions options;
  options.threads = std::max(1, request.threads);
  options.adaptThreads = request.adaptThreads;
  options.profile = request.profile;
  // "auto" prefers a device backend (the first registered one that is not the CPU) and falls back to the CPU
  // with a note when it cannot start (no driver, no device); a named backend that cannot start is an error.
  std::string chosen = request.backend;
  std::string note;
  if (chosen == "auto") {
    chosen = "cpu";
    for (const std::string& b : backends)
      if (b != "auto" && b != "cpu") {
        chosen = b;
        break;
      }
  }
  options.backends = {chosen};
  auto executor = exec::Executor::create(model, options);
  if (!executor && request.backend == "auto" && chosen != "cpu") {
    note = chosen + " is not available here (" + executor.error().message + "); ran on cpu";
    options.backends = {"cpu"};
    chosen = "cpu";
    executor = exec::Executor::create(model, options);
  }
  if (!executor) return executor.error();
  exec::Executor& ex = **executor;

  RunResult result;
  result.backendUsed = chosen;
  result.backendNote = note;
  result.threadsAsked = request.threads;
  result.adaptThreads = request.adaptThreads;
  auto cancelled = [&] { return cancel && cancel->load(); };
  for (int i = 0; i < request.warmup; ++i) {
    if (cancelled()) return result.cancelled = true, result;
    auto run = ex.run(*inputs);
    if (!run) return run.error();
    if (progress) progress({"warm-up", i + 1, request.warmup});
  }
  ex.profiler().clear();
  std::vector<exec::RunValue> outputs;
  for (int i = 0; i < request.iterations; ++i) {
    if (cancelled()) {
      result.cancelled = true;
      break;
    }
    auto start = std::chrono::steady_clock::now();
    auto run = ex.run(*inputs);
    auto end = std::chrono::steady_clock::now();
    if (!run) return run.error();
    result.latency.ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    outputs = std::move(*run);
    if (progress) progress({"run", i + 1, request.iterations});
  }
  const auto& declaredOutputs = model.graph().outputs();
  for (size_t k = 0; k < outputs.size(); ++k)
    result.outputs.push_back(summarizeOutput(
        k < declaredOutputs.size() ? declaredOutputs[k]->name() : std::to_string(k), outputs[k]));
  if (request.profile) {
    result.profile = Profile::fromProfiler(ex.profiler());
    result.profile.mapped.assign(result.profile.events.size(), true);
  }
  result.memory = ex.memoryReport();
  result.device = ex.lastRunReport();
  return result;
}

}  // namespace onyx::profile
