// `onyx run MODEL`: runs a model on inputs (test_data_set folder, .pb files or random), prints latency, and
// optionally profiles, saves outputs, or checks them against expected outputs.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>

#include "cli/command.h"
#include "analysis/bindings_text.h"
#include "exec/compare.h"
#include "exec/busy_cores.h"
#include "exec/executor.h"
#include "exec/run_threads.h"
#include "onnx/onnx_io.h"
#include "profile/profile_summary.h"
#include "util/process_memory.h"

namespace onyx::cli {
namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;
  bool random = false;
  std::vector<std::string> binds;
  std::string backend = "cpu";
  std::string device;
  int threads = exec::ThreadPool::physicalCoreCount();
  bool fixedThreads = false;
  int iterations = 1;
  int warmup = 0;
  std::string profile;
  std::string outputsDir;
  std::string checkDir;
  double rtol = 1e-3;
  double atol = 1e-4;
  bool tieAware = false;
  bool json = false;
};

Expected<exec::NamedValues> gatherInputs(const Model& model, const RunOptions& o,
                                         const SymBindings& bindings) {
  namespace fs = std::filesystem;
  exec::NamedValues inputs;
  std::vector<const Value*> declared;
  for (const Value* v : model.graph().inputs())
    if (!v->isInitializer()) declared.push_back(v);
  if (o.inputs.size() == 1 && fs::is_directory(o.inputs[0])) {
    auto set = exec::loadTestDataSet(model, o.inputs[0]);
    if (!set) return set.error();
    return set->inputs;
  }
  if (!o.inputs.empty()) {
    if (o.inputs.size() > declared.size())
      return makeError("given " + std::to_string(o.inputs.size()) + " input files but the model has " +
                       std::to_string(declared.size()) + " inputs");
    for (size_t k = 0; k < o.inputs.size(); ++k) {
      // As loadTestDataSet: the file is the error's `where`, the message names the input it was for.
      auto inFile = [&](const Error& error) {
        return makeError(error.message + " (model input " + std::to_string(k) + " '" + declared[k]->name() + "')",
                         o.inputs[k]);
      };
      auto value = loadTestValueFile(o.inputs[k], declared[k]->type());
      if (!value) return inFile(value.error());
      auto run = exec::toRunValue(*value, declared[k]->type());
      if (!run) return inFile(run.error());
      inputs.push_back({declared[k]->name(), std::move(*run)});
    }
    return inputs;
  }
  if (!o.checkDir.empty() && !o.random) {
    auto set = exec::loadTestDataSet(model, o.checkDir);
    if (!set) return set.error();
    return set->inputs;
  }
  if (o.random || declared.empty()) {
    uint64_t seed = 1;
    for (const Value* v : declared) {
      auto value = exec::randomInput(*v, bindings, seed++);
      if (!value) return value.error();
      inputs.push_back({v->name(), std::move(*value)});
    }
    return inputs;
  }
  return makeError("no inputs: give --inputs DIR|FILE.pb..., --check DIR, or --random");
}

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Everything about the paths that can be known before running: `--check` names a folder with expected
// outputs (nothing to compare is a failure, not a pass), and no file the run writes is the model or one of
// its inputs, or an existing file where a folder is wanted.
Expected<void> checkRunPaths(const RunOptions& o) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!o.checkDir.empty()) {
    if (!fs::is_directory(o.checkDir, error))
      return makeError("--check " + o.checkDir + ": no such folder; give a test_data_set_N folder");
    if (!fs::exists(fs::path(o.checkDir) / "output_0.pb", error))
      return makeError("--check " + o.checkDir +
                       ": no output_0.pb there, so there is nothing to compare; give a folder with the expected "
                       "output_K.pb files");
  }
  if (!o.outputsDir.empty() && fs::exists(o.outputsDir, error) && !fs::is_directory(o.outputsDir, error))
    return makeError("--outputs " + o.outputsDir + " is an existing file; give a folder (it is created)");
  std::vector<std::string> readPaths{o.model};
  for (const std::string& input : o.inputs) readPaths.push_back(input);
  auto sameFile = [&](const std::string& a, const std::string& b) {
    std::error_code ignored;
    return fs::exists(a, ignored) && fs::exists(b, ignored) && fs::equivalent(a, b, ignored);
  };
  if (!o.profile.empty()) {
    for (const std::string& read : readPaths)
      if (sameFile(o.profile, read))
        return makeError("--profile " + o.profile + " is " + read +
                         ", which this run reads; give the trace another name (the input is left untouched)");
  }
  if (!o.outputsDir.empty()) {
    for (const std::string& read : readPaths)
      if (sameFile(o.outputsDir, read) ||
          (fs::path(read).filename().string().rfind("output_", 0) == 0 &&
           sameFile(o.outputsDir, fs::path(read).parent_path().empty() ? "." : fs::path(read).parent_path().string())))
        return makeError("--outputs " + o.outputsDir + " would write over " + read +
                         ", which this run reads; give another folder (the inputs are left untouched)");
    if (!o.checkDir.empty() && sameFile(o.outputsDir, o.checkDir))
      return makeError("--outputs " + o.outputsDir +
                       " is the --check folder: writing would replace the expected outputs; give another folder");
  }
  return {};
}

// A --bind name no input dim uses is a typo that random inputs would silently ignore (`--bind n=1` for `N`).
Expected<void> checkBindingsNameDims(const Model& model, const SymBindings& bindings) {
  std::set<std::string> names;
  for (const Value* v : model.graph().inputs())
    if (!v->isInitializer() && v->type().isTensor() && v->type().shape())
      for (const Dim& dim : *v->type().shape())
        if (dim.isSymbolic())
          for (const std::string& symbol : dim.expr().symbols()) names.insert(symbol);
  for (const auto& [name, value] : bindings) {
    if (names.count(name)) continue;
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return makeError("--bind " + name + "=" + std::to_string(value) + ": no input of the model has a dim named " +
                     name + (known.empty() ? " (its inputs have no named dims)" : " (named dims: " + known + ")"));
  }
  return {};
}

// An error in an input or expected-output file names that file (the error's `where`, a .pb path) instead of
// the model, which used to be blamed as "tensor ''".
int reportDataError(const std::string& model, const Error& error) {
  const std::string& where = error.where;
  if (where.size() > 3 && where.compare(where.size() - 3, 3, ".pb") == 0) return reportError(where, Error{error.message, ""});
  return reportError(model, error);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int runModel(const RunOptions& o) {
  exec::BusyCores::shared();  // the first window of other processes' load starts now
  // Mapped: inline weights a run never reads (most of an embedding table) take no memory (onnx_io.h).
  auto model = loadModel(o.model, LoadOptions{.mapWeights = true});
  if (!model) return reportError(o.model, model.error());
  SymBindings bindings;
  for (const std::string& bind : o.binds) {
    // Parsed whole, as `onyx shapes --bind` does: "N=0x1", "N=1.5" and "N=2junk" are errors, not 0, 1 and 2.
    auto parsed = parseBindingsText(bind);
    if (!parsed) return reportError(o.model, makeError("--bind: " + parsed.error().message));
    for (const auto& [name, value] : *parsed) {
      auto [it, added] = bindings.emplace(name, value);
      if (!added && it->second != value)
        return reportError(o.model, makeError("--bind: '" + name + "' is bound twice, to " +
                                              std::to_string(it->second) + " and " + std::to_string(value)));
    }
  }
  if (o.random)
    if (auto unused = checkBindingsNameDims(**model, bindings); !unused) return reportError(o.model, unused.error());
  if (auto paths = checkRunPaths(o); !paths) return reportError(o.model, paths.error());
  auto inputs = gatherInputs(**model, o, bindings);
  if (!inputs) return reportDataError(o.model, inputs.error());

  exec::ExecutorOptions options;
  options.threads = o.threads;
  options.adaptThreads = !o.fixedThreads;
  auto backends = chooseBackends(o.backend, o.device);
  if (!backends) return reportError(o.model, backends.error());
  options.backends = *backends;
  options.device = o.device;
  auto executor = exec::Executor::create(**model, options);
  if (!executor) return reportError(o.model, executor.error());
  exec::Executor& ex = **executor;

  std::vector<exec::RunValue> outputs;
  for (int i = 0; i < o.warmup; ++i) {
    auto result = ex.run(*inputs);
    if (!result) return reportError(o.model, result.error());
  }
  std::vector<double> latencies;
  for (int i = 0; i < std::max(1, o.iterations); ++i) {
    if (!o.profile.empty() && i == 0) ex.profiler().clear();
    auto start = std::chrono::steady_clock::now();
    auto result = ex.run(*inputs);
    auto end = std::chrono::steady_clock::now();
    if (!result) return reportError(o.model, result.error());
    latencies.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    outputs = std::move(*result);
  }
  // Profiling run(s) after the timed ones, so the latency figures are unaffected by it; their median shows
  // what profiling costs.
  double profiledMedian = 0;
  if (!o.profile.empty()) {
    auto profiled = exec::Executor::create(**model, [&] {
      auto p = options;
      p.profile = true;
      return p;
    }());
    if (!profiled) return reportError(o.model, profiled.error());
    std::vector<double> profiledLatencies;
    for (int i = 0; i < std::max(1, o.iterations) + 1; ++i) {
      if (i == 1) (*profiled)->profiler().clear();  // the first run records the memory plan
      auto start = std::chrono::steady_clock::now();
      auto result = (*profiled)->run(*inputs);
      auto end = std::chrono::steady_clock::now();
      if (!result) return reportError(o.model, result.error());
      if (i > 0) profiledLatencies.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    profiledMedian = median(profiledLatencies);
    auto written = writeFileAtomically(o.profile, (*profiled)->profiler().chromeTraceJson());
    if (!written) return reportError(o.profile, written.error());
    if (!o.json) {
      std::cout << "profile: " << o.profile << "\nby op type:\n"
                << profile::formatSummaryTable(
                       profile::summarize((*profiled)->profiler().events(), profile::SummaryKey::OpType), 15);
    }
  }

  const Graph& graph = (*model)->graph();
  if (!o.outputsDir.empty()) {
    std::error_code made;
    std::filesystem::create_directories(o.outputsDir, made);
    if (made) return reportError(o.outputsDir, makeError("cannot create the --outputs folder: " + made.message()));
    for (size_t k = 0; k < outputs.size(); ++k) {
      auto* t = std::get_if<exec::TensorValue>(&outputs[k]);
      if (!t) continue;
      Tensor tensor =
          t->dtype() == DataType::String
              ? Tensor::strings(t->dims(), std::vector<std::string>(t->data<std::string>(),
                                                                    t->data<std::string>() + t->count()))
              : Tensor::fromValues<std::byte>(
                    t->dtype(), t->dims(),
                    std::vector<std::byte>(static_cast<const std::byte*>(t->raw()),
                                           static_cast<const std::byte*>(t->raw()) + t->byteSize()));
      tensor.setName(graph.outputs()[k]->name());
      auto saved = saveTensorFile(
          tensor, std::filesystem::path(o.outputsDir) / ("output_" + std::to_string(k) + ".pb"));
      if (!saved) return reportError(o.outputsDir, saved.error());
    }
  }

  bool checkFailed = false;
  bool tieAwareWouldPass = false;
  std::string checkJson;
  std::string checkText;
  if (!o.checkDir.empty()) {
    auto expected = exec::loadTestDataSet(**model, o.checkDir);
    if (!expected) return reportDataError(o.checkDir, expected.error());
    exec::Tolerance tol{o.rtol, o.atol};
    if (o.tieAware) {
      auto c = exec::compareDetectionsAsSets(outputs, expected->outputs, tol);
      checkFailed = !c.ok;
      checkText += fmt::format(
          "check (tie-aware: detections matched as a set, order ignored, rtol relative to each output's "
          "largest magnitude): {} worst abs error {:.3g}{}\n",
          c.ok ? "ok" : "MISMATCH", c.maxAbsError, c.ok ? "" : " (" + c.reason + ")");
      checkJson += fmt::format("{{\"tie_aware\":true,\"ok\":{},\"max_abs_error\":{}}}", c.ok, c.maxAbsError);
    } else {
      for (size_t k = 0; k < expected->outputs.size(); ++k) {
        if (k >= outputs.size()) break;
        auto c = exec::compareValues(outputs[k], expected->outputs[k], tol);
        checkFailed = checkFailed || !c.ok;
        std::string name = k < graph.outputs().size() ? graph.outputs()[k]->name() : std::to_string(k);
        checkText += fmt::format("output '{}': max abs error {:.3g}, max rel error {:.3g}: {}\n", name,
                                 c.maxAbsError, c.maxRelError, c.ok ? "ok" : "MISMATCH (" + c.reason + ")");
        checkJson += fmt::format(
            "{}{{\"output\":\"{}\",\"ok\":{},\"max_abs_error\":{},\"max_rel_error\":{},\"mismatches\":{}{}}}",
            k ? "," : "", jsonEscape(name), c.ok, c.maxAbsError, c.maxRelError, c.mismatches,
            c.ok ? "" : ",\"reason\":\"" + jsonEscape(c.reason) + "\"");
      }
      // Detections with near-tied scores come out in another order from another runtime: say so, rather than
      // leave an exact-order mismatch looking like a wrong answer.
      if (checkFailed && outputs.size() > 1 && exec::compareDetectionsAsSets(outputs, expected->outputs, tol).ok)
        tieAwareWouldPass = true;
    }
  }
  double med = median(latencies);
  double lo = *std::min_element(latencies.begin(), latencies.end());
  double hi = *std::max_element(latencies.begin(), latencies.end());
  auto memory = ex.memoryReport();
  // The last timed run's device work (after the warm-up runs: the steady state).
  const exec::RunReport& report = ex.lastRunReport();
  std::string hostNodesJson;
  for (const exec::HostNodeRun& n : report.hostNodes)
    hostNodesJson += fmt::format("{}{{\"node\":\"{}\",\"why\":\"{}\"}}", hostNodesJson.empty() ? "" : ",",
                                 jsonEscape(n.node), jsonEscape(n.why));
  const std::string deviceRunJson = fmt::format(
      "{{\"submits\":{},\"waits\":{},\"replays\":{},\"plan_walked\":{},\"bytes_up\":{},\"bytes_down\":{},"
      "\"cpu_nodes\":[{}]}}",
      report.device.submits, report.device.waits, report.device.replays, report.planWalked, report.device.bytesUp,
      report.device.bytesDown, hostNodesJson);
  // The whole process's peak, the weights, arena and libraries included (0 where the system does not say):
  // against the same for a model with nothing in it, what a model costs to load and run.
  const int64_t processPeak = peakResidentBytes().value_or(0);
  // Threads asked for and used by the last timed run, fewer while other processes kept cores busy.
  // And, where the first runs timed all of them against half (exec/thread_tuner.h), those times.
  const auto& choice = report.threadChoice;
  const std::string tunedJson =
      choice ? fmt::format("{{\"all\":{},\"half\":{},\"all_ms\":{:.4f},\"half_ms\":{:.4f},\"chosen\":{}}}", choice->all,
                           choice->half, choice->allMs, choice->halfMs, choice->chosen)
             : std::string("null");
  const std::string threadsJson = fmt::format(
      "{{\"requested\":{},\"last_run\":{},\"adaptive\":{},\"others_busy_cores\":{},\"shared_cores\":{},"
      "\"tuned\":{}}}",
      o.threads, report.threads, !o.fixedThreads,
      report.othersBusy ? fmt::format("{:.2f}", *report.othersBusy) : std::string("null"), report.sharedCores,
      tunedJson);
  const std::string threadsText = exec::describeRunThreads(o.threads, !o.fixedThreads, report);
  if (o.json) {
    std::cout << fmt::format(
        "{{\"model\":\"{}\",\"iterations\":{},\"latency_ms\":{{\"median\":{:.4f},\"min\":{:.4f},\"max\":{:."
        "4f}}},"
        "\"arena_bytes\":{},\"peak_bytes\":{},\"process_peak_bytes\":{},\"backend\":\"{}\",\"device\":\"{}\","
        "\"threads\":{},\"channel_block_values\":{},\"device_run\":{},\"check\":[{}]}}\n",
        o.model, latencies.size(), med, lo, hi, memory.arenaBytes, memory.peakBytes, processPeak,
        options.backends.front(), jsonEscape(ex.devices().front().second), threadsJson, report.channelBlockValues,
        deviceRunJson, checkJson);
  } else {
    if (options.backends.front() != "cpu")
    {
      std::cout << "device: " << ex.devices().front().second << " (" << options.backends.front() << ", "
                << ex.transferCount() << " transfers planned)\n";
      std::cout << fmt::format(
          "device run: {} submits ({} replayed{}), {} host waits, {} bytes up, {} bytes down, {} CPU nodes\n",
          report.device.submits, report.device.replays, report.planWalked ? "" : " without walking the plan",
          report.device.waits, report.device.bytesUp, report.device.bytesDown, report.hostNodes.size());
      for (const exec::HostNodeRun& n : report.hostNodes) std::cout << "  on the CPU: " << n.node << ": " << n.why << "\n";
    }
    std::cout << fmt::format(
        "latency: median {:.3f} ms, min {:.3f} ms, max {:.3f} ms ({} iterations, {})\n", med, lo, hi,
        latencies.size(), threadsText);
    if (profiledMedian > 0)
      std::cout << fmt::format("profiled runs: median {:.3f} ms ({:+.1f}% for recording events)\n",
                               profiledMedian, 100.0 * (profiledMedian / med - 1.0));
    if (memory.arenaBytes > 0)
      std::cout << fmt::format("memory: arena {:.2f} MiB, peak {:.2f} MiB at {}\n",
                               memory.arenaBytes / 1048576.0, memory.peakBytes / 1048576.0, memory.peakNode);
    if (processPeak > 0) std::cout << fmt::format("process: peak resident {:.1f} MiB\n", processPeak / 1048576.0);
    for (size_t k = 0; k < outputs.size() && o.checkDir.empty(); ++k)
      std::cout << "output '" << graph.outputs()[k]->name() << "': " << exec::describeValue(outputs[k])
                << "\n";
    std::cout << checkText;
  }
  if (checkFailed)
    return reportError(
        o.checkDir,
        makeError("outputs differ from the expected values beyond rtol " + fmt::format("{:g}", o.rtol) + ", atol " +
                  fmt::format("{:g}", o.atol) +
                  (tieAwareWouldPass ? "; matched as a set of detections they agree (near-tied scores in another "
                                       "order): --tie-aware compares that way"
                                     : "")));
  return kExitOk;
}

}  // namespace

// An option given as '' is a mistake (a shell variable that was never set), not "option absent".
const CLI::Validator kNotEmpty(
    [](const std::string& value) { return value.empty() ? std::string("must not be empty") : std::string(); },
    "", "not empty");

Command runCommand() {
  return {"run", "Run a model: latency, profile, outputs, check against expected outputs", [](CLI::App& app) {
            auto o = std::make_shared<RunOptions>();
            app.add_option("MODEL", o->model, "Model file (.onnx)")->required();
            app.add_option("--inputs", o->inputs,
                           "A test_data_set_N folder or input_K.pb files in input order");
            app.add_flag("--random", o->random, "Random inputs (symbolic dims from --bind)");
            app.add_option("--bind", o->binds, "Symbol binding NAME=VALUE for --random");
            app.add_option("--backend", o->backend, "cpu, vulkan or auto")
                ->check(CLI::IsMember({"cpu", "vulkan", "auto"}));
            app.add_option("--device", o->device,
                           "Vulkan device: index or part of its name (default: ONYX_VULKAN_DEVICE, else the "
                           "best GPU)");
            app.add_option("--threads", o->threads,
                           "Threads for kernels, at most (default: the physical cores); fewer while other "
                           "processes keep cores busy, unless --fixed-threads")
                ->check(CLI::Range(1, 256));
            app.add_flag("--fixed-threads", o->fixedThreads,
                         "Always use --threads threads, even while other processes keep cores busy");
            app.add_option("--iterations", o->iterations, "Timed runs")->check(CLI::Range(1, 1000000));
            app.add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::Range(0, 1000000));
            app.add_option("--profile", o->profile, "Write a Chrome trace (Perfetto) of per-node events")
                ->check(kNotEmpty);
            app.add_option("--outputs", o->outputsDir, "Write output_K.pb files to this folder")
                ->check(kNotEmpty);
            app.add_option("--check", o->checkDir, "Compare outputs with a test_data_set_N folder")
                ->check(kNotEmpty);
            app.add_option("--rtol", o->rtol, "Relative tolerance for --check");
            app.add_option("--atol", o->atol, "Absolute tolerance for --check");
            app.add_flag("--tie-aware", o->tieAware,
                         "Match detections (outputs sharing their first dim) as a set: for near-tied scores");
            app.add_flag("--json", o->json, "Print results as JSON");
            return [o]() { return runModel(*o); };
          }};
}

}  // namespace onyx::cli
