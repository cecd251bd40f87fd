#include "ir/scopes.h"

#include "ir/module_path.h"

namespace onyx {

Scope* ScopeTree::addChild(Scope& parent, std::string name, bool synthetic) {
  auto child = std::make_unique<Scope>();
  child->path = parent.path + "/" + name;
  child->name = std::move(name);
  child->parent = &parent;
  child->depth = parent.depth + 1;
  child->synthetic = synthetic;
  Scope* raw = child.get();
  parent.children.push_back(std::move(child));
  byPath_.emplace(raw->path, raw);
  return raw;
}

ScopeTree ScopeTree::build(const Graph& graph, const ScopeOptions& options) {
  ScopeTree tree;
  tree.root_ = std::make_unique<Scope>();
  tree.byPath_.emplace(tree.root_->path, tree.root_.get());
  for (Node* node : graph.nodes()) {
    std::string path = scopePathOf(*node);
    if (!path.empty() && path.front() != '/') path.insert(path.begin(), '/');  // "a/b/Conv" names
    Scope* scope = tree.root_.get();
    size_t start = 1;  // paths start with '/'
    while (start <= path.size() && !path.empty()) {
      size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      std::string_view prefix = std::string_view(path).substr(0, end);
      auto found = tree.byPath_.find(prefix);
      if (found != tree.byPath_.end()) {
        scope = found->second;
      } else {
        scope = tree.addChild(*scope, path.substr(start, end - start), false);
      }
      start = end + 1;
    }
    scope->nodes.push_back(node);
    tree.byNode_.emplace(node->id(), scope);
    for (Scope* s = scope; s; s = s->parent) ++s->totalNodes;
  }
  if (options.maxBoxes > 0) tree.splitCrowded(*tree.root_, options);
  return tree;
}

const Scope* ScopeTree::find(std::string_view path) const {
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  auto it = byPath_.find(path);
  return it == byPath_.end() ? nullptr : it->second;
}

const Scope* ScopeTree::scopeOf(NodeId node) const {
  auto it = byNode_.find(node);
  return it == byNode_.end() ? nullptr : it->second;
}

// Exporters share shape constants across a whole network; as boxes their long edges made dot take minutes
// (shufflenet_v2: 304 Constants, 422 s with them, 1.2 s without). An Identity of an initializer is the same
// thing: the alias an exporter writes for a shared weight (ssdlite has 20 at its top level, one wide row).
bool isFoldedConstant(const Node* node) {
  if (!(node->domain().empty() || node->domain() == "ai.onnx") || node->outputCount() != 1 || !node->output(0)) {
    return false;
  }
  const bool constant = node->opType() == "Constant" && node->inputCount() == 0;
  const bool weightAlias = node->opType() == "Identity" && node->inputCount() == 1 && node->input(0) &&
                           node->input(0)->isInitializer() && !node->input(0)->isGraphInput();
  if (!constant && !weightAlias) return false;
  for (const Use& use : node->output(0)->uses()) {
    if (use.graphOutput) return false;
  }
  return true;
}

size_t boxCount(const Scope& scope) {
  size_t boxes = scope.children.size();
  for (const Node* node : scope.nodes) boxes += !isFoldedConstant(node);
  return boxes;
}

}  // namespace onyx
