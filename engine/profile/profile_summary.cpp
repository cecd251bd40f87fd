#include "profile/profile_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "util/json_writer.h"

namespace onyx::profile {

std::string_view eventScope(const exec::ProfileEvent& event) {
  if (!event.scope.empty()) return event.scope;
  std::string_view name = event.name;
  size_t slash = name.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return {};
  return name.substr(0, slash);
}

namespace {
std::string nodeKey(const exec::ProfileEvent& e) {
  return fmt::format("{} '{}' (#{})", e.opType, e.name, e.node);
}

void addTo(SummaryRow& row, const exec::ProfileEvent& e) {
  row.count++;
  row.totalMs += e.durationNs / 1e6;
  row.flops += e.flops;
  row.bytes += e.bytesRead + e.bytesWritten;
  row.threads = std::max(row.threads, e.threads);
}
}  // namespace

std::vector<SummaryRow> summarize(const std::vector<exec::ProfileEvent>& events, SummaryKey key) {
  std::map<std::string, SummaryRow> rows;
  double total = 0;
  for (const exec::ProfileEvent& e : events) {
    if (e.depth > 0) continue;
    total += e.durationNs / 1e6;
    if (key == SummaryKey::Scope) {
      // Every enclosing scope, and the top level "/" for nodes outside any scope.
      std::string_view scope = eventScope(e);
      if (scope.empty()) {
        addTo(rows["/"], e);
        rows["/"].key = "/";
        continue;
      }
      for (size_t end = 1; end <= scope.size(); ++end) {
        if (end != scope.size() && scope[end] != '/') continue;
        std::string prefix(scope.substr(0, end));
        SummaryRow& row = rows[prefix];
        row.key = prefix;
        addTo(row, e);
      }
      continue;
    }
    std::string rowKey = key == SummaryKey::Node ? nodeKey(e) : e.opType;
    SummaryRow& row = rows[rowKey];
    row.key = rowKey;
    row.opType = e.opType;
    if (key == SummaryKey::Node) row.node = e.node;
    addTo(row, e);
  }
  std::vector<SummaryRow> out;
  out.reserve(rows.size());
  for (auto& [rowKey, row] : rows) {
    row.meanMs = row.count ? row.totalMs / double(row.count) : 0;
    row.percent = total > 0 ? 100.0 * row.totalMs / total : 0;
    out.push_back(row);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SummaryRow& a, const SummaryRow& b) { return a.totalMs > b.totalMs; });
  return out;
}

FlameTree buildFlameTree(const Profile& profile) {
  FlameTree tree;
  tree.root = std::make_unique<FlameNode>();
  tree.root->name = "model";
  tree.iterations = std::max(1, profile.iterationCount());
  std::unordered_map<std::string, FlameNode*> scopes{{"", tree.root.get()}};
  std::unordered_map<std::string, FlameNode*> leaves;

  auto child = [](FlameNode* parent, std::string name, std::string path) {
    auto node = std::make_unique<FlameNode>();
    node->name = std::move(name);
    node->path = std::move(path);
    node->parent = parent;
    parent->children.push_back(std::move(node));
    return parent->children.back().get();
  };
  std::function<FlameNode*(std::string_view)> scopeNode = [&](std::string_view path) -> FlameNode* {
    auto found = scopes.find(std::string(path));
    if (found != scopes.end()) return found->second;
    size_t slash = path.rfind('/');
    FlameNode* parent = scopeNode(slash == 0 || slash == std::string_view::npos ? "" : path.substr(0, slash));
    FlameNode* node = child(parent, std::string(path.substr(slash + 1)), std::string(path));
    scopes.emplace(std::string(path), node);
    return node;
  };

  for (const exec::ProfileEvent& e : profile.events) {
    if (e.depth > 0) continue;
    std::string leafKey = e.node != kNoNode ? fmt::format("#{}", e.node) : e.name + "\n" + e.opType;
    FlameNode*& leaf = leaves[leafKey];
    if (!leaf) {
      std::string_view scope = eventScope(e);
      leaf = child(scopeNode(scope), e.name.empty() ? e.opType : e.name, std::string(scope));
      leaf->node = e.node;
      leaf->opType = e.opType.empty() ? "?" : e.opType;
    }
    leaf->totalNs += e.durationNs;
    leaf->flops += e.flops;
    leaf->count++;
  }
  // Scopes hold the sum of their children.
  std::function<void(FlameNode&)> total = [&](FlameNode& node) {
    if (node.isLeaf()) return;
    node.totalNs = node.flops = node.count = 0;
    for (auto& c : node.children) {
      total(*c);
      node.totalNs += c->totalNs;
      node.flops += c->flops;
      node.count += c->count;
    }
  };
  total(*tree.root);
  return tree;
}

std::string formatSummaryTable(const std::vector<SummaryRow>& rows, size_t limit) {
  std::string out = fmt::format("{:<48} {:>7} {:>10} {:>9} {:>6} {:>9} {:>7}\n", "name", "count", "total ms",
                                "mean ms", "%", "GFLOP/s", "threads");
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const SummaryRow& r = rows[i];
    double gflops = r.totalMs > 0 ? double(r.flops) / (r.totalMs * 1e6) : 0;
    std::string key = r.key.size() > 48 ? r.key.substr(0, 45) + "..." : r.key;
    out += fmt::format("{:<48} {:>7} {:>10.3f} {:>9.4f} {:>6.1f} {:>9.2f} {:>7}\n", key, r.count, r.totalMs,
                       r.meanMs, r.percent, gflops, r.threads);
  }
  return out;
}

std::string summaryCsv(const std::vector<SummaryRow>& rows) {
  auto quote = [](const std::string& text) {
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  std::string out = "key,op_type,count,total_ms,mean_ms,percent,flops,bytes,gflops_per_s,threads\n";
  for (const SummaryRow& r : rows) {
    double gflops = r.totalMs > 0 ? double(r.flops) / (r.totalMs * 1e6) : 0;
    out += fmt::format("{},{},{},{:.6f},{:.6f},{:.3f},{},{},{:.3f},{}\n", quote(r.key), quote(r.opType), r.count,
                       r.totalMs, r.meanMs, r.percent, r.flops, r.bytes, gflops, r.threads);
  }
  return out;
}

std::string speedscopeJson(const Profile& profile, std::string_view name) {
  JsonWriter json(JsonWriter::Style::Compact);
  std::vector<std::string> frames;
  std::unordered_map<std::string, size_t> frameIndex;
  auto frame = [&](const std::string& label) {
    auto [it, inserted] = frameIndex.emplace(label, frames.size());
    if (inserted) frames.push_back(label);
    return it->second;
  };
  struct Mark {
    bool open;
    size_t frame;
    int64_t at;
  };
  std::map<int, std::vector<const exec::ProfileEvent*>> byThread;
  for (const exec::ProfileEvent& e : profile.events)
    if (e.depth == 0) byThread[e.thread].push_back(&e);

  std::vector<std::pair<int, std::vector<Mark>>> threads;
  for (auto& [thread, events] : byThread) {
    std::stable_sort(events.begin(), events.end(),
                     [](const auto* a, const auto* b) { return a->startNs < b->startNs; });
    std::vector<Mark> marks;
    std::vector<std::pair<std::string, size_t>> open;  // scope path, frame
    int64_t lastEnd = events.empty() ? 0 : events.front()->startNs;
    for (const exec::ProfileEvent* e : events) {
      // Events on one thread do not overlap; clamp in case clocks rounded them into each other.
      int64_t start = std::max(e->startNs, lastEnd);
      int64_t end = std::max(start, e->startNs + e->durationNs);
      std::string_view scope = eventScope(*e);
      std::vector<std::string> chain;
      for (size_t i = 1; i <= scope.size(); ++i)
        if (i == scope.size() || scope[i] == '/') chain.emplace_back(scope.substr(0, i));
      size_t common = 0;
      while (common < open.size() && common < chain.size() && open[common].first == chain[common]) ++common;
      while (open.size() > common) {
        marks.push_back({false, open.back().second, lastEnd});
        open.pop_back();
      }
      for (size_t i = common; i < chain.size(); ++i) {
        open.emplace_back(chain[i], frame(chain[i]));
        marks.push_back({true, open.back().second, start});
      }
      size_t leaf = frame(fmt::format("{} {}", e->opType, e->name.empty() ? e->opType : e->name));
      marks.push_back({true, leaf, start});
      marks.push_back({false, leaf, end});
      lastEnd = end;
    }
    while (!open.empty()) {
      marks.push_back({false, open.back().second, lastEnd});
      open.pop_back();
    }
    threads.emplace_back(thread, std::move(marks));
  }

  json.beginObject()
      .member("$schema", "https://www.speedscope.app/file-format-schema.json")
      .member("name", name)
      .member("exporter", "onyx");
  json.key("shared").beginObject().key("frames").beginArray();
  for (const std::string& f : frames) json.beginObject().member("name", f).endObject();
  json.endArray().endObject();
  json.key("profiles").beginArray();
  for (const auto& [thread, marks] : threads) {
    int64_t startValue = marks.empty() ? 0 : marks.front().at;
    int64_t endValue = marks.empty() ? 0 : marks.back().at;
    json.beginObject()
        .member("type", "evented")
        .member("name", fmt::format("thread {}", thread))
        .member("unit", "nanoseconds")
        .member("startValue", startValue)
        .member("endValue", endValue);
    json.key("events").beginArray();
    for (const Mark& m : marks)
      json.beginObject().member("type", m.open ? "O" : "C").member("frame", m.frame).member("at", m.at).endObject();
    json.endArray().endObject();
  }
  json.endArray().endObject();
  return json.str() + "\n";
}

}  // namespace onyx::profile
