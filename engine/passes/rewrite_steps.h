#pragma once
// Step Into: one pass applied one rewrite at a time. The pass runs once, whole, in a transaction; its change
// log is cut at the end of every rewrite the pass counted (the records behind PassOptions::rewriteLimit, the
// debug counter bisection searches) and undone, so the model is as it was and each rewrite is a change log of
// its own that applies (redo) and undoes by itself, in order. Before a rewrite applies, its record names the
// nodes it matches (its root and the nodes it removes or modifies); after, the nodes it made. Applying the
// first K rewrites gives the model the pass makes with rewriteLimit = K, and applying all of them the model
// it makes run whole, node ids included (the edits are the same ones, replayed).
#include <memory>
#include <string>
#include <vector>

#include "ir/rewriter.h"
#include "passes/pass_manager.h"

namespace onyx::passes {

// One rewrite of a pass, ready to apply on its own.
struct SingleRewrite {
  // index 1-based among the pass's rewrites; index 0 when the pass does not count its rewrites and this is
  // the whole pass (RewriteSteps::countsRewrites).
  RewriteRecord record;
  // Undone until applied: redo() applies the rewrite, undo() takes it back (after the later ones).
  std::shared_ptr<ChangeLog> changes;

  // The nodes the rewrite matches, there before it applies: its root, the nodes it removes and those it
  // modifies, each once.
  std::vector<NodeId> matchedNodes() const;
  // The nodes there after it applies that it made or changed: those it added, then those it modified.
  std::vector<NodeId> resultNodes() const;
};

struct RewriteSteps {
  // The pass run whole: its counters, skips, node counts, time and every rewrite record. `whole.changes` is
  // null: the edits are in `rewrites`.
  PassStep whole;
  // False when the pass changed the model without counting rewrites (it does not go through the pattern
  // driver): then `rewrites` holds one entry, the whole pass.
  bool countsRewrites = true;
  // In the order the pass made them; empty when the pass changed nothing.
  std::vector<SingleRewrite> rewrites;
};

// Runs `pass` on `model` (only nodes in `scope`, "" everything) and splits its edits into single rewrites,
// all undone: the model is left as it was. A pass that fails leaves it as it was too and returns its error.
Expected<RewriteSteps> splitIntoRewrites(Model& model, Pass& pass, const std::string& scope = {},
                                         const PassOptions& options = {});

}  // namespace onyx::passes
