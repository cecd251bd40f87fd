// Splitting a crowded scope into synthetic ones (ScopeTree::splitCrowded): why and how in scopes.h.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

#include "ir/scopes.h"

namespace onyx {
namespace {

// One run of a scope's nodes in their (topological) order: [begin, end) positions.
struct Run {
  size_t begin = 0;
  size_t end = 0;
};

// live[i]: values made at positions <= i and read at a position > i (the cut after node i).
std::vector<size_t> cutWidths(const std::vector<Node*>& nodes) {
  std::unordered_map<const Node*, size_t> position;
  for (size_t i = 0; i < nodes.size(); ++i) position.emplace(nodes[i], i);
  std::vector<long> delta(nodes.size() + 1, 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (isFoldedConstant(nodes[i])) continue;
    for (size_t o = 0; o < nodes[i]->outputCount(); ++o) {
      const Value* value = nodes[i]->output(o);
      if (!value) continue;
      size_t last = i;
      for (const Use& use : value->uses()) {
        auto it = use.node ? position.find(use.node) : position.end();
        if (it != position.end()) last = std::max(last, it->second);
      }
      if (last > i) {
        ++delta[i];
        --delta[last];
      }
    }
  }
  std::vector<size_t> live(nodes.size(), 0);
  long running = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    running += delta[i];
    live[i] = static_cast<size_t>(std::max(0L, running));
  }
  return live;
}

std::string opLabel(const Node* node) {
  return node->domain().empty() || node->domain() == "ai.onnx" ? node->opType()
                                                                 : node->domain() + "." + node->opType();
}

// The smallest period p (in drawn nodes) with which the op sequence repeats for at least 90% of its
// length, at least twice; 0 when there is none. Transformer blocks and repeated conv blocks show up here.
size_t repeatPeriod(const std::vector<size_t>& ops, size_t maxPeriod) {
  constexpr size_t kMinPeriod = 4;
  for (size_t p = kMinPeriod; p <= maxPeriod && 2 * p <= ops.size(); ++p) {
    size_t same = 0;
    for (size_t i = 0; i + p < ops.size(); ++i) same += ops[i] == ops[i + p];
    if (same * 10 >= (ops.size() - p) * 9) return p;
  }
  return 0;
}

// Runs of about `target` drawn nodes, cut where the fewest values are live: a dynamic programme over cut
// positions minimising (values crossing each cut) + (deviation from the target size)^2.
std::vector<Run> chooseRuns(const std::vector<Node*>& nodes, const std::vector<size_t>& live, double target,
                            double sizeWeight) {
  const size_t n = nodes.size();
  std::vector<size_t> drawnBefore(n + 1, 0);
  for (size_t i = 0; i < n; ++i) drawnBefore[i + 1] = drawnBefore[i] + !isFoldedConstant(nodes[i]);
  const size_t longest = static_cast<size_t>(std::ceil(target * 2));
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, infinity);
  std::vector<size_t> from(n + 1, 0);
  best[0] = 0;
  for (size_t end = 1; end <= n; ++end) {
    double cut = end < n ? static_cast<double>(live[end - 1]) : 0.0;
    for (size_t begin = end; begin-- > 0;) {
      size_t drawn = drawnBefore[end] - drawnBefore[begin];
      if (drawn > longest) break;
      if (drawn == 0 || best[begin] == infinity) continue;
      double deviation = (static_cast<double>(drawn) - target) / target;
      double cost = best[begin] + cut + sizeWeight * deviation * deviation;
      if (cost < best[end]) {
        best[end] = cost;
        from[end] = begin;
      }
    }
  }
  std::vector<Run> runs;
  if (best[n] == infinity) return runs;
  for (size_t end = n; end > 0; end = from[end]) runs.push_back({from[end], end});
  std::reverse(runs.begin(), runs.end());
  return runs;
}

// "Conv·HardSwish·Add": the run's most frequent op types, most frequent first (ties: first seen).
std::string runTitle(const std::vector<Node*>& nodes, const Run& run) {
  std::vector<std::pair<std::string, size_t>> counts;
  for (size_t i = run.begin; i < run.end; ++i) {
    if (isFoldedConstant(nodes[i])) continue;
    std::string op = opLabel(nodes[i]);
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == op; });
    if (it == counts.end()) {
      counts.emplace_back(std::move(op), 1);
    } else {
      ++it->second;
    }
  }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string title;
  for (size_t i = 0; i < counts.size() && i < 3; ++i) title += (i ? "·" : "") + counts[i].first;
  return title;
}

}  // namespace

void ScopeTree::splitCrowded(Scope& scope, const ScopeOptions& options) {
  const size_t maxBoxes = options.maxBoxes;
  size_t drawn = boxCount(scope) - scope.children.size();
  size_t budget = maxBoxes > scope.children.size() + 8 ? maxBoxes - scope.children.size() : 8;
  if (drawn > budget && drawn >= 2) {
    std::vector<Node*> nodes = std::move(scope.nodes);
    scope.nodes.clear();
    std::map<std::string, size_t> opIds;
    std::vector<size_t> ops;
    for (const Node* node : nodes) {
      if (!isFoldedConstant(node)) ops.push_back(opIds.try_emplace(opLabel(node), opIds.size()).first->second);
    }
    // Runs as long as one repeat when the ops repeat and that gives few enough boxes; otherwise about
    // sqrt(n) runs of sqrt(n) nodes, so this level and the next stay about equally small.
    size_t most = std::max<size_t>(2, budget / 2);
    double target = std::max(std::sqrt(static_cast<double>(drawn)), static_cast<double>(drawn) / most);
    double sizeWeight = 2.0;
    if (size_t period = repeatPeriod(ops, maxBoxes); period && drawn / period <= most) {
      target = static_cast<double>(period);
      sizeWeight = 20.0;
    }
    std::vector<Run> runs = chooseRuns(nodes, cutWidths(nodes), target, sizeWeight);
    if (runs.size() < 2) runs.clear();  // one run would only rename the scope
    for (size_t r = 0; r < runs.size(); ++r) {
      Scope* part = addChild(scope, runTitle(nodes, runs[r]) + " #" + std::to_string(r + 1), true);
      for (size_t i = runs[r].begin; i < runs[r].end; ++i) {
        part->nodes.push_back(nodes[i]);
        byNode_[nodes[i]->id()] = part;
      }
      part->totalNodes = part->nodes.size();
    }
    if (runs.empty()) scope.nodes = std::move(nodes);
  }
  for (auto& child : scope.children) splitCrowded(*child, options);
}

}  // namespace onyx
