// `onyx profile TRACE [--model MODEL] [--by op|node|scope] [--json] [--top N] [--csv OUT] [--speedscope OUT]`:
// summarises a trace from `onyx run --profile` or ONNX Runtime's profiler; with --model, maps its events onto
// that model's nodes by name and says how many mapped. With `--onto ORIGINAL` as well (MODEL being an
// optimized descendant of ORIGINAL), paints the time on ORIGINAL's nodes through provenance
// (profile/origin_profile.h): one row per original node with its share, removed nodes listed as such.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>

#include "analysis/bindings_text.h"
#include "cli/command.h"
#include "cli/output_paths.h"
#include "onnx/onnx_io.h"
#include "profile/origin_profile.h"
#include "profile/profile.h"
#include "profile/profile_summary.h"
#include "util/json_writer.h"

namespace onyx::cli {

namespace {
struct ProfileOptions {
  std::string trace;
  std::string model;
  std::string by = "op";
  bool json = false;
  size_t top = 20;
  std::string csv;
  std::string speedscope;
  std::string onto;
  std::vector<std::string> binds;
};

std::string formatName(profile::TraceFormat format) {
  return format == profile::TraceFormat::OnnxRuntime ? "onnxruntime" : "onyx";
}

double milliseconds(int64_t ns, int iterations) {
  return double(ns) / 1e6 / double(std::max(iterations, 1));
}

void printOrigins(const profile::OriginProfile& origins, const ProfileOptions& o) {
  const double total = double(std::max<int64_t>(origins.totalNs, 1));
  if (o.json) {
    JsonWriter json;
    json.beginObject()
        .member("trace", o.trace)
        .member("model", o.model)
        .member("onto", o.onto)
        .member("iterations", origins.iterations)
        .member("total_ms", milliseconds(origins.totalNs, origins.iterations))
        .member("painted_ms", milliseconds(origins.placedNs, origins.iterations));
    json.key("unplaced").beginArray();
    for (const std::string& name : origins.unplaced) json.value(name);
    json.endArray().key("nodes").beginArray();
    for (const profile::OriginTime& row : origins.nodes) {
      json.beginObject()
          .member("name", row.name)
          .member("op_type", row.opType)
          .member("fate", std::string(profile::fateName(row.fate)))
          .member("total_ms", milliseconds(row.totalNs, origins.iterations))
          .member("percent", 100.0 * double(row.totalNs) / total)
          .member("flops", row.flops);
      json.key("from").beginArray();
      for (const std::string& name : row.from) json.value(name);
      json.endArray().endObject();
    }
    json.endArray().endObject();
    std::cout << json.str() << "\n";
    return;
  }
  std::cout << fmt::format("painted on {}: {} nodes ({} kept, {} merged, {} removed); {:.3f} of {:.3f} ms per run\n",
                           o.onto, origins.nodes.size(), origins.count(profile::OriginFate::Kept),
                           origins.count(profile::OriginFate::Merged), origins.count(profile::OriginFate::Removed),
                           milliseconds(origins.placedNs, origins.iterations),
                           milliseconds(origins.totalNs, origins.iterations));
  if (!origins.unplaced.empty()) {
    std::string names;
    for (const std::string& n : origins.unplaced) names += (names.empty() ? "" : ", ") + n;
    std::cout << "not painted (no original node): " << names << "\n";
  }
  std::vector<const profile::OriginTime*> rows;
  std::string removed;
  for (const profile::OriginTime& row : origins.nodes) {
    if (row.fate == profile::OriginFate::Removed) {
      removed += (removed.empty() ? "" : ", ") + row.name;
    } else {
      rows.push_back(&row);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->totalNs > b->totalNs; });
  std::cout << fmt::format("{:<44} {:<20} {:>7} {:>10} {:>7}  {}\n", "node", "op", "fate", "ms/run", "%", "from");
  for (size_t i = 0; i < rows.size() && i < o.top; ++i) {
    const profile::OriginTime& row = *rows[i];
    std::string from;
    for (const std::string& n : row.from) from += (from.empty() ? "" : ", ") + n;
    std::cout << fmt::format("{:<44} {:<20} {:>7} {:>10.4f} {:>7.2f}  {}\n", row.name, row.opType,
                             profile::fateName(row.fate), milliseconds(row.totalNs, origins.iterations),
                             100.0 * double(row.totalNs) / total, from);
  }
  if (rows.size() > o.top) std::cout << fmt::format("({} more rows; --top N shows more)\n", rows.size() - o.top);
  if (!removed.empty()) std::cout << "removed (no time): " << removed << "\n";
}

int runProfile(const ProfileOptions& o) {
  if (auto spared = checkOutputsSpareInputs(
          {{"--csv", o.csv}, {"--speedscope", o.speedscope}},
          {{"the trace", o.trace}, {"the --model file", o.model}, {"the --onto file", o.onto}});
      !spared)
    return reportError(o.csv.empty() ? o.speedscope : o.csv, spared.error());
  auto trace = profile::readTrace(o.trace);
  if (!trace) return reportError(o.trace, trace.error());
  std::optional<profile::MappingStats> mapping;
  std::unique_ptr<Model> profiled;
  if (!o.model.empty()) {
    auto model = loadModel(o.model);
    if (!model) return reportError(o.model, model.error());
    mapping = profile::mapOntoModel(*trace, **model);
    profiled = std::move(*model);
  }
  if (!o.onto.empty()) {
    auto original = loadModel(o.onto);
    if (!original) return reportError(o.onto, original.error());
    SymBindings bindings;
    for (const std::string& bind : o.binds) {
      auto parsed = parseBindingsText(bind);
      if (!parsed) return reportError(o.onto, makeError("--bind: " + parsed.error().message));
      for (const auto& [name, value] : *parsed) bindings[name] = value;
    }
    printOrigins(profile::paintOnOriginal(*trace, *profiled, **original, bindings), o);
    return std::cout.flush() ? kExitOk : kExitBadInput;
  }
  profile::SummaryKey key = o.by == "node"    ? profile::SummaryKey::Node
                            : o.by == "scope" ? profile::SummaryKey::Scope
                                              : profile::SummaryKey::OpType;
  std::vector<profile::SummaryRow> rows = profile::summarize(trace->events, key);
  if (!o.csv.empty()) {
    if (auto written = writeFileAtomically(o.csv, profile::summaryCsv(rows)); !written)
      return reportError(o.csv, written.error());
  }
  if (!o.speedscope.empty()) {
    if (auto written = writeFileAtomically(o.speedscope, profile::speedscopeJson(*trace, o.trace)); !written)
      return reportError(o.speedscope, written.error());
  }
  size_t nodeEvents = 0;
  for (const exec::ProfileEvent& e : trace->events) nodeEvents += e.depth == 0;

  if (o.json) {
    JsonWriter json;
    json.beginObject()
        .member("trace", o.trace)
        .member("format", formatName(trace->format))
        .member("iterations", trace->iterationCount())
        .member("node_events", nodeEvents);
    if (mapping) {
      json.key("mapping")
          .beginObject()
          .member("model", o.model)
          .member("events", mapping->events)
          .member("mapped", mapping->mapped)
          .member("runtime_inserted", mapping->runtimeInserted);
      json.key("unmapped").beginArray();
      for (const std::string& name : mapping->unmappedNames) json.value(name);
      json.endArray().endObject();
    }
    json.member("by", o.by).key("rows").beginArray();
    for (const profile::SummaryRow& r : rows) {
      json.beginObject()
          .member("key", r.key)
          .member("op_type", r.opType)
          .member("count", r.count)
          .member("total_ms", r.totalMs)
          .member("mean_ms", r.meanMs)
          .member("percent", r.percent)
          .member("flops", r.flops)
          .member("bytes", r.bytes)
          .member("threads", r.threads)
          .endObject();
    }
    json.endArray().endObject();
    std::cout << json.str() << "\n";
    return std::cout.flush() ? kExitOk : kExitBadInput;
  }
  std::cout << fmt::format("trace: {} ({}, {} iterations, {} node events)\n", o.trace, formatName(trace->format),
                           trace->iterationCount(), nodeEvents);
  if (mapping) {
    std::cout << fmt::format("mapped: {} of {} node events ({:.1f}%) onto {}\n", mapping->mapped, mapping->events,
                             100.0 * mapping->mappedShare(), o.model);
    if (mapping->runtimeInserted > 0)
      std::cout << fmt::format("runtime-inserted: {} events of nodes the runtime created; {:.1f}% of the rest mapped\n",
                               mapping->runtimeInserted, 100.0 * mapping->mappedShareOfModelNodes());
    if (!mapping->unmappedNames.empty()) {
      std::string names;
      for (const std::string& n : mapping->unmappedNames) names += (names.empty() ? "" : ", ") + n;
      std::cout << "unmapped: " << names << "\n";
    }
  }
  std::cout << profile::formatSummaryTable(rows, o.top);
  if (rows.size() > o.top) std::cout << fmt::format("({} more rows; --top N shows more)\n", rows.size() - o.top);
  return std::cout.flush() ? kExitOk : kExitBadInput;
}
}  // namespace

Command profileCommand() {
  return {"profile", "Summarise a profile (ours or ONNX Runtime's) by op, node or scope; export CSV or speedscope",
          [](CLI::App& app) -> std::function<int()> {
            auto o = std::make_shared<ProfileOptions>();
            app.add_option("TRACE", o->trace, "Chrome trace from `onyx run --profile`, or an ONNX Runtime profile")
                ->required();
            CLI::Option* model =
                app.add_option("--model", o->model, "Map the events onto this model's nodes by name");
            app.add_option("--onto", o->onto,
                           "Paint the time on this original model through MODEL's provenance (MODEL optimized "
                           "from it): each original node's share, split by FLOPs; removed nodes listed")
                ->needs(model);
            app.add_option("--bind", o->binds, "Symbol binding NAME=VALUE for --onto's FLOPs estimates");
            app.add_option("--by", o->by, "Group rows by op type, node or name scope")
                ->check(CLI::IsMember({"op", "node", "scope"}));
            app.add_flag("--json", o->json, "Print JSON");
            app.add_option("--top", o->top, "Rows to print (text output)");
            app.add_option("--csv", o->csv, "Also write the rows as CSV");
            app.add_option("--speedscope", o->speedscope, "Also write speedscope JSON (evented, by scope)");
            return [o] { return runProfile(*o); };
          }};
}

}  // namespace onyx::cli
