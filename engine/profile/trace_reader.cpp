// nlohmann/json parses the traces: ORT's profiler writes a top-level array of loosely typed objects (numbers
// as strings in "args"), which a hand-written reader would have to treat as generally as a JSON library.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profile/profile.h"

namespace onyx::profile {

namespace {
using nlohmann::json;

int64_t integerField(const json& object, const char* key, int64_t fallback = 0) {
  auto found = object.find(key);
  if (found == object.end()) return fallback;
  if (found->is_number_integer()) return found->get<int64_t>();
  if (found->is_number()) return static_cast<int64_t>(std::llround(found->get<double>()));
  if (found->is_string()) {
    try {
      return std::stoll(found->get<std::string>());
    } catch (...) {
      return fallback;
    }
  }
  return fallback;
}

std::string stringField(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// Microseconds (Chrome trace units, possibly fractional) to nanoseconds.
int64_t microsToNanos(const json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return 0;
  return static_cast<int64_t>(std::llround(found->get<double>() * 1000.0));
}

Expected<Profile> parseOnyx(const json& document, std::string_view source) {
  Profile profile;
  profile.format = TraceFormat::Onyx;
  const json& events = document["traceEvents"];
  if (!events.is_array()) return Error{"\"traceEvents\" is not an array", std::string(source)};
  for (const json& e : events) {
    if (!e.is_object()) continue;
    std::string category = stringField(e, "cat");
    if (category == "iteration") {
      std::string name = stringField(e, "name");
      int iteration = static_cast<int>(profile.iterations.size());
      if (name.starts_with("iteration ")) iteration = std::atoi(name.c_str() + 10);
      profile.iterations.push_back({iteration, microsToNanos(e, "ts"), microsToNanos(e, "dur")});
      continue;
    }
    auto args = e.find("args");
    if (args == e.end() || !args->is_object() || !args->contains("node_id")) continue;
    exec::ProfileEvent event;
    event.node = static_cast<NodeId>(integerField(*args, "node_id", kNoNode));
    event.name = stringField(e, "name");
    event.opType = stringField(*args, "op");
    if (event.name == event.opType) event.name.clear();  // unnamed nodes are written under their op type
    event.backend = stringField(*args, "backend");
    event.variant = stringField(*args, "kernel");
    event.thread = static_cast<int>(integerField(e, "tid"));
    event.iteration = static_cast<int>(integerField(*args, "iteration"));
    event.depth = static_cast<int>(integerField(*args, "depth"));
    event.startNs = microsToNanos(e, "ts");
    event.durationNs = microsToNanos(e, "dur");
    event.bytesRead = integerField(*args, "bytes_read");
    event.bytesWritten = integerField(*args, "bytes_written");
    event.flops = integerField(*args, "flops");
    event.threads = static_cast<int>(integerField(*args, "threads", 1));  // traces from before it: 1
    profile.events.push_back(std::move(event));
  }
  return profile;
}

Expected<Profile> parseOnnxRuntime(const json& document) {
  Profile profile;
  profile.format = TraceFormat::OnnxRuntime;
  // ORT has no iteration marks: each model_run Session event is one iteration; node events belong to the
  // run whose interval holds them.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const json& e : document) {
    if (e.is_object() && stringField(e, "cat") == "Session" && stringField(e, "name") == "model_run")
      runs.emplace_back(microsToNanos(e, "ts"), microsToNanos(e, "dur"));
  }
  std::map<int64_t, int> threads;  // ORT thread ids are OS ids: number them in order of appearance
  for (const json& e : document) {
    if (!e.is_object() || stringField(e, "cat") != "Node") continue;
    std::string name = stringField(e, "name");
    // Each node has _fence_before/_fence_after markers around its _kernel_time event.
    constexpr std::string_view kSuffix = "_kernel_time";
    if (!name.ends_with(kSuffix)) continue;
    name.resize(name.size() - kSuffix.size());
    exec::ProfileEvent event;
    event.name = name;
    auto args = e.find("args");
    if (args != e.end() && args->is_object()) {
      event.opType = stringField(*args, "op_name");
      std::string provider = stringField(*args, "provider");
      event.backend = provider == "CPUExecutionProvider" ? "cpu" : provider;
      event.bytesWritten = integerField(*args, "output_size");
      event.bytesRead = integerField(*args, "activation_size") + integerField(*args, "parameter_size");
    }
    event.variant = "onnxruntime";
    auto [it, inserted] = threads.emplace(integerField(e, "tid"), static_cast<int>(threads.size()));
    event.thread = it->second;
    event.startNs = microsToNanos(e, "ts");
    event.durationNs = microsToNanos(e, "dur");
    for (size_t r = 0; r < runs.size(); ++r)
      if (event.startNs >= runs[r].first && event.startNs <= runs[r].first + runs[r].second)
        event.iteration = static_cast<int>(r);
    profile.events.push_back(std::move(event));
  }
  for (size_t r = 0; r < runs.size(); ++r)
    profile.iterations.push_back({static_cast<int>(r), runs[r].first, runs[r].second});
  return profile;
}
}  // namespace

Expected<Profile> parseTrace(std::string_view text, std::string_view source) {
  json document = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded())
    return Error{"not valid JSON: expected a Chrome trace (onyx run --profile) or an ONNX Runtime profile",
                 std::string(source)};
  if (document.is_object() && document.contains("traceEvents")) return parseOnyx(document, source);
  if (document.is_array()) return parseOnnxRuntime(document);
  return Error{"neither a Chrome trace object with \"traceEvents\" nor an ONNX Runtime profile array",
               std::string(source)};
}

Expected<Profile> readTrace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the trace: check the path", path.string()};
  std::ostringstream text;
  text << in.rdbuf();
  return parseTrace(text.str(), path.string());
}

Profile Profile::fromProfiler(const exec::Profiler& profiler) {
  Profile profile;
  profile.events = profiler.events();
  profile.iterations = profiler.iterations();
  return profile;
}

int Profile::iterationCount() const {
  if (!iterations.empty()) return static_cast<int>(iterations.size());
  int last = -1;
  for (const exec::ProfileEvent& e : events) last = std::max(last, e.iteration);
  return events.empty() ? 0 : last + 1;
}

}  // namespace onyx::profile
