#include "exec/profiler.h"

#include "util/json_writer.h"

#include <fmt/format.h>


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
  return exec::chromeTraceJson(events_, iterations_);
}

std::string chromeTraceJson(const std::vector<ProfileEvent>& events, const std::vector<IterationMark>& iterations) {
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  for (const IterationMark& it : iterations) {
    sep();
    out += fmt::format(
        R"({{"name":"iteration {}","cat":"iteration","ph":"X","pid":1,"tid":100,"ts":{:.3f},"dur":{:.3f}}})",
        it.iteration, it.startNs / 1000.0, it.durationNs / 1000.0);
  }
  for (const ProfileEvent& e : events) {
    sep();
    out += fmt::format(
        R"({{"name":{},"cat":{},"ph":"X","pid":1,"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"node_id":{},"op":{},"backend":{},"kernel":{},"iteration":{},"depth":{},"bytes_read":{},"bytes_written":{},"flops":{},"threads":{}}}}})",
        jsonQuote(e.name.empty() ? e.opType : e.name), jsonQuote(e.opType), e.thread, e.startNs / 1000.0,
        e.durationNs / 1000.0, e.node, jsonQuote(e.opType), jsonQuote(e.backend), jsonQuote(e.variant),
        e.iteration, e.depth, e.bytesRead, e.bytesWritten, e.flops, e.threads);
  }
  out += "\n],\"displayTimeUnit\":\"ms\"}\n";
  return out;
}

}  // namespace onyx::exec
