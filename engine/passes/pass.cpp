#include "passes/pass.h"

#include <algorithm>

#include "ir/module_path.h"

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
