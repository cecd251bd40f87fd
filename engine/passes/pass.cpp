#include "passes/pass.h"

#include <algorithm>

#include "ir/module_path.h"
#include "passes/provenance.h"

namespace onyx::passes {

PassContext::PassContext(Model& model, Rewriter& rewriter, std::string scope, PassOptions options)
    : model_(model), rewriter_(rewriter), scope_(std::move(scope)), options_(std::move(options)) {}

bool PassContext::inScope(const Node& node) const {
  if (scope_.empty()) return true;
  // The node's module path where the exporter recorded one (dynamo), else its name's scope.
  const Node* named = &node;
  std::string path = scopePathOf(*named);
  while (path.empty() && named->graph() && named->graph()->owner()) {
    named = named->graph()->owner();
    path = scopePathOf(*named);
  }
  if (!path.starts_with(scope_)) return false;
  // "/encoder/layer.1" must not match "/encoder/layer.10".
  return path.size() == scope_.size() || scope_.back() == '/' || path[scope_.size()] == '/';
}

const ShapeInference& PassContext::shapes() {
  if (!shapes_) {
    ShapeInferenceOptions options;
    options.bindings = options_.bindings;
    shapes_ = std::make_unique<ShapeInference>(inferShapes(model_, options));
  }
  return *shapes_;
}

void PassContext::beginRewrite(const Node& root) {
  rewriteRoot_ = {root.id(), root.opType(), root.name()};
  rewriter_.beginRewrite();
}

void PassContext::endRewrite(bool rewritten) {
  Rewriter::RewriteEdits edits = rewriter_.endRewrite();
  if (!rewritten) return;
  recordProvenance(rewriter_, edits);
  RewriteRecord record{int64_t(rewrites_.size()) + 1, std::move(rewriteRoot_), {}, {}, {}};
  for (const auto& node : edits.removed) record.removed.push_back(node.node);
  for (const auto& node : edits.added) record.added.push_back(node.node);
  for (const auto& node : edits.modified) record.modified.push_back(node.node);
  rewrites_.push_back(std::move(record));
  if (const Transaction* transaction = model_.activeTransaction())
    rewriteEditEnds_.push_back(transaction->editCount());
}

void PassContext::count(std::string_view counter, int64_t by) {
  auto found = std::find_if(counters_.begin(), counters_.end(),
                            [&](const PassCounter& c) { return c.name == counter; });
  if (found == counters_.end()) {
    counters_.push_back({std::string(counter), by});
  } else {
    found->count += by;
  }
}

void PassContext::skip(const Node& node, std::string reason) {
  skips_.push_back({node.id(), node.describe(), std::move(reason)});
}

}  // namespace onyx::passes
