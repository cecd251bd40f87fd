#pragma once
// The hierarchy of name scopes that exporters encode in node names: "/encoder/layer.0/attention/MatMul_1"
// lies in /encoder > /encoder/layer.0 > /encoder/layer.0/attention. Derived once here; the graph view
// collapses by it and the flame view aggregates time by it.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace onyx {

struct Scope {
  std::string name;  // last component: "attention"
  std::string path;  // "/encoder/layer.0/attention"; "" for the root
  Scope* parent = nullptr;
  std::vector<std::unique_ptr<Scope>> children;  // in order of first appearance
  std::vector<Node*> nodes;                       // nodes directly in this scope
  size_t totalNodes = 0;                          // in this scope and below
  int depth = 0;
};

class ScopeTree {
 public:
  static ScopeTree build(const Graph& graph);

  const Scope& root() const { return *root_; }
  const Scope* find(std::string_view path) const;
  const Scope* scopeOf(NodeId node) const;
  size_t scopeCount() const { return byPath_.size(); }

 private:
  std::unique_ptr<Scope> root_;
  std::unordered_map<std::string_view, Scope*> byPath_;
  std::unordered_map<NodeId, Scope*> byNode_;
};

}  // namespace onyx
