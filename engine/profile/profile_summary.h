#pragma once
// Summaries of profile events: by node, by op type, by name scope (inclusive), and the scope tree of time
// the flame view draws, plus exports (CSV, speedscope).
#include <memory>
#include <string>
#include <vector>

#include "exec/profiler.h"
#include "profile/profile.h"

namespace onyx::profile {

enum class SummaryKey { Node, OpType, Scope };

struct SummaryRow {
  std::string key;  // node "Conv '/layer1/conv' (#12)", op type "Conv" or scope "/layer1"
  std::string opType;
  NodeId node = kNoNode;  // node rows only
  int64_t count = 0;      // events summed (nodes x iterations)
  double totalMs = 0;
  double meanMs = 0;
  double percent = 0;  // of all node time
  int64_t flops = 0;
  int64_t bytes = 0;
  int threads = 1;  // the most threads any of its events ran on (ProfileEvent::threads)
};

// Main-graph events only: a control-flow node's time already holds its body's. Rows sorted by total time,
// descending. Scope rows are inclusive: "/layer1" holds "/layer1/layer1.0".
std::vector<SummaryRow> summarize(const std::vector<exec::ProfileEvent>& events, SummaryKey key);

// The scope of an event: its node's (event.scope, the module path of a dynamo export) when mapped onto the
// model, else its name's ("/layer1/layer1.0/conv1/Conv" -> "/layer1/layer1.0/conv1"); "" at the top.
std::string_view eventScope(const exec::ProfileEvent& event);

// Time over the scope hierarchy: model -> /encoder -> /encoder/layer.0 -> ... -> node. A node's time is the
// sum of its events; a scope's is the sum of its children, so children's widths add up to their parent's.
struct FlameNode {
  std::string name;  // "layer1.0", or the node's name for a leaf ("/layer1/layer1.0/conv1/Conv")
  std::string path;  // scope path; a leaf's is its scope's
  NodeId node = kNoNode;  // leaves only
  std::string opType;     // leaves only
  int64_t totalNs = 0;
  int64_t flops = 0;
  int64_t count = 0;  // events summed
  FlameNode* parent = nullptr;
  std::vector<std::unique_ptr<FlameNode>> children;  // in order of first execution
  bool isLeaf() const { return node != kNoNode || !opType.empty(); }
};

struct FlameTree {
  std::unique_ptr<FlameNode> root;  // name "model"
  int iterations = 1;
};

FlameTree buildFlameTree(const Profile& profile);

// The rows as a text table (name, count, total and mean ms, percent, GFLOP/s, threads), the first `limit`
// rows.
std::string formatSummaryTable(const std::vector<SummaryRow>& rows, size_t limit);

// One row per node: key,op_type,count,total_ms,mean_ms,percent,flops,bytes,gflops_per_s,threads.
std::string summaryCsv(const std::vector<SummaryRow>& rows);
// speedscope's evented format (https://www.speedscope.app/file-format-schema.json): one profile per thread,
// frames for scopes and nodes, so speedscope's left-heavy view is the scope flame graph.
std::string speedscopeJson(const Profile& profile, std::string_view name);

}  // namespace onyx::profile
