#include "ir/nesting.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "util/limits.h"

namespace onyx {
namespace {

std::string functionLabel(const Function& function) {
  return (function.domain.empty() ? "" : function.domain + ".") + function.name;
}

class NestingChecker {
 public:
  explicit NestingChecker(const Model& model) : limit_(resourceLimits().maxNestingDepth) {
    for (const auto& function : model.functions)
      if (function->body) functions_.try_emplace({function->domain, function->name, function->overload}, function.get());
  }

  // The deepest level reached from `graph`, which lies at `level`; an error past the limit or on a call cycle.
  // The recursion goes no deeper than the limit.
  Expected<int64_t> deepest(const Graph& graph, int64_t level) {
    int64_t reached = level;
    for (const Node* node : graph.nodes()) {
      for (const Graph* body : node->subgraphs()) {
        if (level + 1 > limit_) return nestingTooDeep(level + 1, "node " + node->describe());
        auto inner = deepest(*body, level + 1);
        if (!inner) return inner.error();
        reached = std::max(reached, *inner);
      }
      auto found = functions_.find({node->domain(), node->opType(), node->overload()});
      if (found == functions_.end()) continue;
      auto called = call(*found->second, *node, level);
      if (!called) return called.error();
      reached = std::max(reached, *called);
    }
    return reached;
  }

 private:
  Expected<int64_t> call(const Function& function, const Node& caller, int64_t level) {
    for (size_t i = 0; i < callStack_.size(); ++i) {
      if (callStack_[i] != &function) continue;
      std::string cycle;
      for (size_t j = i; j < callStack_.size(); ++j) cycle += functionLabel(*callStack_[j]) + " -> ";
      cycle += functionLabel(function);
      return makeError("model-local function '" + functionLabel(function) + "' calls itself (" + cycle +
                           "); ONNX functions cannot recurse",
                       "node " + caller.describe());
    }
    if (level + 1 > limit_) return nestingTooDeep(level + 1, "node " + caller.describe());
    if (auto known = relativeDepth_.find(&function); known != relativeDepth_.end()) {
      int64_t reached = level + 1 + known->second;
      if (reached > limit_) return nestingTooDeep(reached, "node " + caller.describe());
      return reached;
    }
    callStack_.push_back(&function);
    auto inner = deepest(*function.body, level + 1);
    callStack_.pop_back();
    if (!inner) return inner.error();
    relativeDepth_[&function] = *inner - (level + 1);
    return *inner;
  }

  int64_t limit_;
  std::map<std::tuple<std::string, std::string, std::string>, const Function*> functions_;
  std::unordered_map<const Function*, int64_t> relativeDepth_;  // how far below its body a call reaches
  std::vector<const Function*> callStack_;
};

}  // namespace

Error nestingTooDeep(int64_t depth, std::string where) {
  return makeError("If/Loop/Scan bodies and function calls nest " + std::to_string(depth) +
                       " levels deep, over the nesting limit of " + std::to_string(resourceLimits().maxNestingDepth) +
                       "; flatten the model (nested control flow this deep is not a real network)",
                   std::move(where));
}

Expected<void> checkNesting(const Model& model) {
  NestingChecker checker(model);
  if (auto main = checker.deepest(model.graph(), 0); !main) return main.error();
  // Functions no node calls are checked too: a GUI edit or a later pass could call them.
  for (const auto& function : model.functions) {
    if (!function->body) continue;
    if (auto body = checker.deepest(*function->body, 1); !body) return body.error();
  }
  return {};
}

}  // namespace onyx
