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

struct PassOptions {
  // Constant folding does not create constants larger than this (bytes).
  int64_t constantFoldingSizeLimit = 1 << 20;
  // Bindings for symbolic dims the shape-aware passes may assume (`batch=1`).
  SymBindings bindings;
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
