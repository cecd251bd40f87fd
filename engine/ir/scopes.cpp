#include "ir/scopes.h"

namespace onyx {

ScopeTree ScopeTree::build(const Graph& graph) {
  ScopeTree tree;
  tree.root_ = std::make_unique<Scope>();
  tree.byPath_.emplace(tree.root_->path, tree.root_.get());
  for (Node* node : graph.nodes()) {
    std::string_view path = node->scopePath();
    Scope* scope = tree.root_.get();
    size_t start = 1;  // paths start with '/'
    while (start <= path.size() && !path.empty()) {
      size_t end = path.find('/', start);
      if (end == std::string_view::npos) end = path.size();
      std::string_view prefix = path.substr(0, end);
      auto found = tree.byPath_.find(prefix);
      if (found != tree.byPath_.end()) {
        scope = found->second;
      } else {
        auto child = std::make_unique<Scope>();
        child->name = std::string(path.substr(start, end - start));
        child->path = std::string(prefix);
        child->parent = scope;
        child->depth = scope->depth + 1;
        Scope* raw = child.get();
        scope->children.push_back(std::move(child));
        tree.byPath_.emplace(raw->path, raw);
        scope = raw;
      }
      start = end + 1;
    }
    scope->nodes.push_back(node);
    tree.byNode_.emplace(node->id(), scope);
    for (Scope* s = scope; s; s = s->parent) ++s->totalNodes;
  }
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

}  // namespace onyx
