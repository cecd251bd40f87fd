#pragma once
// A pass: a small class with a kebab-case name (also its CLI name), a one-line summary, and run() returning
// whether it changed the model. It edits only through the context's Rewriter, counts what it did in named
// counters ("reshapes-removed: 12") and says why a candidate was left alone ("shape of %x unknown").
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "ir/rewriter.h"
#include "shapes/shape_inference.h"

namespace onyx::passes {

struct PassCounter {
  std::string name;  // kebab-case: "reshapes-removed"
  int64_t count = 0;
};

// A candidate the pass matched but did not rewrite, and why.
struct PassSkip {
  NodeId node = kNoNode;
  std::string where;   // Node::describe()
  std::string reason;  // "shape of %x unknown"
};

// One rewrite a pass made: the match at `root` and the nodes its edits touched (Rewriter::RewriteEdits).
struct RewriteRecord {
  int64_t index = 0;  // 1-based, in the order the pass made them
  NodeOrigin root;
  std::vector<NodeOrigin> removed;
  std::vector<NodeOrigin> added;
  std::vector<NodeOrigin> modified;
};

struct PassOptions {
  // Constant folding does not create constants larger than this (bytes).
  int64_t constantFoldingSizeLimit = 1 << 20;
  // Bindings for symbolic dims the shape-aware passes may assume (`batch=1`).
  SymBindings bindings;
  // A debug counter, as LLVM's -opt-bisect-limit and MLIR's debug counters: the pass stops after this many
  // rewrites (0: makes none). Bisection searches it for the rewrite that breaks a model.
  std::optional<int64_t> rewriteLimit;
};

class PassContext {
 public:
  PassContext(Model& model, Rewriter& rewriter, std::string scope = {}, PassOptions options = {});

  Model& model() { return model_; }
  Rewriter& rewriter() { return rewriter_; }
  const PassOptions& options() const { return options_; }

  // The scope the pass is restricted to ("" = everything, "/encoder/layer.0" = nodes whose scope starts
  // with it: scopePathOf, the module path of a dynamo export or else the name's scope). Passes only rewrite nodes for which inScope() holds. A body node without a name scope
  // of its own (exporters rarely name them) lies in the scope of the If/Loop/Scan node holding its body.
  const std::string& scope() const { return scope_; }
  bool inScope(const Node& node) const;

  // Shape inference of the model as it was when first asked for; values created since have no entry, so
  // passes treat them as unknown. invalidateShapes() makes the next call infer again.
  const ShapeInference& shapes();
  void invalidateShapes() { shapes_.reset(); }

  // Rewrites: a pass brackets the edits of each match with beginRewrite/endRewrite (the pattern driver does
  // so for every pattern pass), which records what each touched, gives the nodes it made their origins, and
  // keeps the rewrite limit. mayRewrite() says whether the limit allows another; a pass stops when it
  // does not.
  bool mayRewrite() const {
    return !options_.rewriteLimit || int64_t(rewrites_.size()) < *options_.rewriteLimit;
  }
  void beginRewrite(const Node& root);
  // `rewritten`: the match made edits (a match that made none leaves no record).
  void endRewrite(bool rewritten);
  const std::vector<RewriteRecord>& rewrites() const { return rewrites_; }
  // For each rewrite, the size of the open transaction's change log when it ended (its provenance edits
  // included): where Step Into cuts the pass's log. Empty outside a transaction.
  const std::vector<size_t>& rewriteEditEnds() const { return rewriteEditEnds_; }
  // Whether the limit was reached: a pass asked mayRewrite() and was told no.
  bool stoppedAtLimit() const { return stoppedAtLimit_; }
  void noteStoppedAtLimit() { stoppedAtLimit_ = true; }

  void count(std::string_view counter, int64_t by = 1);
  void skip(const Node& node, std::string reason);
  void skip(PassSkip skip) { skips_.push_back(std::move(skip)); }

  const std::vector<PassCounter>& counters() const { return counters_; }
  const std::vector<PassSkip>& skips() const { return skips_; }

 private:
  Model& model_;
  Rewriter& rewriter_;
  std::string scope_;
  PassOptions options_;
  std::unique_ptr<ShapeInference> shapes_;
  std::vector<PassCounter> counters_;
  std::vector<PassSkip> skips_;
  std::vector<RewriteRecord> rewrites_;
  std::vector<size_t> rewriteEditEnds_;
  NodeOrigin rewriteRoot_;
  bool stoppedAtLimit_ = false;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;     // kebab-case, the CLI name
  virtual std::string_view summary() const = 0;  // one line
  // Runs over the main graph (and, where the pass says so, bodies and functions). Returns whether anything
  // changed. A pass that fails midway returns the error; the manager reverts its transaction.
  virtual Expected<bool> run(PassContext& context) = 0;
};

struct PassInfo {
  std::string name;
  std::string summary;
  std::function<std::unique_ptr<Pass>()> create;
};

// Every pass, in catalogue order. Passes register in passes/registry.cpp.
const std::vector<PassInfo>& passRegistry();
std::unique_ptr<Pass> createPass(std::string_view name);
// The pipeline `onyx optimize --pipeline default` and the GUI's "Run pipeline" use.
const std::vector<std::string>& defaultPipeline();

}  // namespace onyx::passes
