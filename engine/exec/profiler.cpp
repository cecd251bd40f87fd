#include "exec/profiler.h"

#include "profile/profile_summary.h"
#include "util/json_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace onyx::exec {

Profiler::Profiler() : epoch_(std::chrono::steady_clock::now()) {
  events_.reserve(4096);
}

int64_t Profiler::nowNs() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_)
      .count();
}

void Profiler::beginIteration() {
  ++iteration_;
  iterations_.push_back({iteration_, nowNs(), 0});
}

void Profiler::endIteration() {
  if (!iterations_.empty()) iterations_.back().durationNs = nowNs() - iterations_.back().startNs;
}

void Profiler::clear() {
  events_.clear();
  iterations_.clear();
  iteration_ = -1;
}

std::string Profiler::chromeTraceJson() const {
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  for (const IterationMark& it : iterations_) {
    sep();
    out += fmt::format(
        R"({{"name":"iteration {}","cat":"iteration","ph":"X","pid":1,"tid":100,"ts":{:.3f},"dur":{:.3f}}})",
        it.iteration, it.startNs / 1000.0, it.durationNs / 1000.0);
  }
  for (const ProfileEvent& e : events_) {
    sep();
    out += fmt::format(
        R"({{"name":{},"cat":{},"ph":"X","pid":1,"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"node_id":{},"op":{},"backend":{},"kernel":{},"iteration":{},"depth":{},"bytes_read":{},"bytes_written":{},"flops":{}}}}})",
        jsonQuote(e.name.empty() ? e.opType : e.name), jsonQuote(e.opType), e.thread, e.startNs / 1000.0,
        e.durationNs / 1000.0, e.node, jsonQuote(e.opType), jsonQuote(e.backend), jsonQuote(e.variant),
        e.iteration, e.depth, e.bytesRead, e.bytesWritten, e.flops);
  }
  out += "\n],\"displayTimeUnit\":\"ms\"}\n";
  return out;
}


std::vector<SummaryRow> Profiler::byNode() const {
  return profile::summarize(events_, profile::SummaryKey::Node);
}
std::vector<SummaryRow> Profiler::byOpType() const {
  return profile::summarize(events_, profile::SummaryKey::OpType);
}

std::string Profiler::formatSummary(const std::vector<SummaryRow>& rows, size_t limit) {
  std::string out = fmt::format("{:<48} {:>7} {:>10} {:>9} {:>6} {:>9}\n", "name", "count", "total ms",
                                "mean ms", "%", "GFLOP/s");
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const SummaryRow& r = rows[i];
    double gflops = r.totalMs > 0 ? double(r.flops) / (r.totalMs * 1e6) : 0;
    std::string key = r.key.size() > 48 ? r.key.substr(0, 45) + "..." : r.key;
    out += fmt::format("{:<48} {:>7} {:>10.3f} {:>9.4f} {:>6.1f} {:>9.2f}\n", key, r.count, r.totalMs,
                       r.meanMs, r.percent, gflops);
  }
  return out;
}

}  // namespace onyx::exec
