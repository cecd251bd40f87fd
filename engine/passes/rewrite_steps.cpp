#include "passes/rewrite_steps.h"

#include <algorithm>
#include <chrono>

namespace onyx::passes {
namespace {

void addOnce(std::vector<NodeId>& ids, NodeId id) {
  if (id != kNoNode && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
}

}  // namespace

std::vector<NodeId> SingleRewrite::matchedNodes() const {
  std::vector<NodeId> ids;
  addOnce(ids, record.root.id);
  for (const NodeOrigin& node : record.removed) addOnce(ids, node.id);
  for (const NodeOrigin& node : record.modified) addOnce(ids, node.id);
  return ids;
}

std::vector<NodeId> SingleRewrite::resultNodes() const {
  std::vector<NodeId> ids;
  for (const NodeOrigin& node : record.added) addOnce(ids, node.id);
  for (const NodeOrigin& node : record.modified) addOnce(ids, node.id);
  return ids;
}

Expected<RewriteSteps> splitIntoRewrites(Model& model, Pass& pass, const std::string& scope,
                                         const PassOptions& options) {
  RewriteSteps steps;
  PassStep& whole = steps.whole;
  whole.pass = std::string(pass.name());
  whole.nodesBefore = countNodes(model);

  const auto start = std::chrono::steady_clock::now();
  Transaction transaction(model, whole.pass);
  Rewriter rewriter(model);
  PassContext context(model, rewriter, scope, options);
  auto changed = pass.run(context);
  if (!changed) {
    transaction.revert();
    return changed.error();
  }
  std::shared_ptr<ChangeLog> log = transaction.commit();
  whole.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  whole.changed = !log->empty();
  whole.counters = context.counters();
  whole.skips = context.skips();
  whole.rewrites = context.rewrites();
  whole.stoppedAtRewriteLimit = context.stoppedAtLimit();
  whole.nodesAfter = countNodes(model);
  if (!whole.changed) return steps;

  std::vector<size_t> ends = context.rewriteEditEnds();
  // Every counted rewrite ended inside this transaction, so each has its end; a pass that counted none
  // (or brackets its rewrites some other way) is one step.
  steps.countsRewrites = !whole.rewrites.empty() && ends.size() == whole.rewrites.size();
  if (!steps.countsRewrites) ends = {log->size()};
  std::vector<std::shared_ptr<ChangeLog>> parts = log->split(ends);
  // Back to the model before the pass: the last rewrite first.
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) (*part)->undo();
  for (size_t i = 0; i < parts.size(); ++i) {
    SingleRewrite rewrite;
    if (steps.countsRewrites) rewrite.record = whole.rewrites[i];
    rewrite.changes = std::move(parts[i]);
    steps.rewrites.push_back(std::move(rewrite));
  }
  return steps;
}

}  // namespace onyx::passes
