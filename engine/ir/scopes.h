#pragma once
// The hierarchy the graph view collapses by. Scopes come from what the exporter recorded: the module path
// in a node's metadata (PyTorch 2.x dynamo), else the name scopes in node names
// ("/encoder/layer.0/attention/MatMul_1" lies in /encoder > /encoder/layer.0 > /encoder/layer.0/attention).
// Where a scope would still show more than `maxBoxes` boxes (unnamed exports, long post-processing code in
// one module), its own nodes are split into synthetic scopes: runs of the topological order cut where the
// fewest values cross, sized by the repeat period of the op sequence when there is one (transformer
// blocks, repeated conv blocks), named after their ops. Derived once here; the graph view collapses by it
// and the flame view aggregates time by it.
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
  bool synthetic = false;  // a run of nodes grouped by structure, not a scope the exporter named
};

struct ScopeOptions {
  // A scope whose own drawn nodes plus child scopes exceed this is split (0: never split).
  size_t maxBoxes = 200;
};

class ScopeTree {
 public:
  static ScopeTree build(const Graph& graph, const ScopeOptions& options = {});

  const Scope& root() const { return *root_; }
  const Scope* find(std::string_view path) const;
  const Scope* scopeOf(NodeId node) const;
  size_t scopeCount() const { return byPath_.size(); }

 private:
  Scope* addChild(Scope& parent, std::string name, bool synthetic);
  void splitCrowded(Scope& scope, const ScopeOptions& options);  // scope_split.cpp

  std::unique_ptr<Scope> root_;
  std::unordered_map<std::string_view, Scope*> byPath_;
  std::unordered_map<NodeId, Scope*> byNode_;
};

// A Constant node, or an Identity of an initializer (a shared weight's alias), that feeds only nodes: the
// graph view draws it as a tag on each consumer, not a box.
bool isFoldedConstant(const Node* node);
// Boxes the scope's own level shows when collapsed: its nodes that are not folded Constants, plus one
// per child scope.
size_t boxCount(const Scope& scope);

}  // namespace onyx
