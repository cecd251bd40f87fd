#pragma once
// The pattern driver, in the spirit of MLIR's greedy pattern rewrite driver. A pattern pass names the ops it
// is rooted at and matches one root node at a time: it rewrites (through the Rewriter) and says which
// counter the rewrite counts in, or leaves the node alone, silently (not a candidate) or with the reason a
// user should see ("shape of %x unknown"). The driver owns everything else, the same for every pattern:
// the walk over every graph of the model (the main graph, If/Loop/Scan bodies at any depth, the bodies of
// model-local functions), looking nodes up again after earlier rewrites removed them, the scope filter,
// roots whose attributes refer to the calling function's attributes, the counters and the skip records, and
// repeated sweeps where a pattern asks for a fixpoint.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "passes/pass.h"
#include "passes/pass_util.h"

namespace onyx::passes {

// What a pattern did at one root.
class PatternResult {
 public:
  // Rewrote; the driver adds `count` to the counter named `counter` ("transposes-merged").
  static PatternResult rewritten(std::string counter, int64_t count = 1);
  // Matched a candidate but left it alone; the driver records `reason` against `at` (the root when null).
  static PatternResult skipped(std::string reason, const Node* at = nullptr);
  // Not a candidate: nothing to record.
  static PatternResult noMatch() { return PatternResult(Kind::NoMatch, {}, 0, nullptr); }

  bool isRewritten() const { return kind_ == Kind::Rewritten; }
  bool isSkipped() const { return kind_ == Kind::Skipped; }
  bool isNoMatch() const { return kind_ == Kind::NoMatch; }
  const std::string& counter() const { return text_; }
  const std::string& reason() const { return text_; }
  int64_t count() const { return count_; }
  const Node* at() const { return at_; }

 private:
  enum class Kind { Rewritten, Skipped, NoMatch };
  PatternResult(Kind kind, std::string text, int64_t count, const Node* at)
      : kind_(kind), text_(std::move(text)), count_(count), at_(at) {}
  Kind kind_;
  std::string text_;
  int64_t count_;
  const Node* at_;
};

// What a pattern sees of the graph its root lies in.
class PatternContext {
 public:
  PatternContext(PassContext& pass, Graph& graph);

  PassContext& pass() { return pass_; }
  Rewriter& rewriter() { return pass_.rewriter(); }
  Model& model() { return pass_.model(); }
  Graph& graph() { return graph_; }
  // Other nodes of a match must be in the scope too (the root is, or the driver would not have called).
  bool inScope(const Node* node) const { return node && pass_.inScope(*node); }
  // Whether the graph is (or lies in) the body of a model-local function: no initializers there.
  bool inFunction() const { return function_ != nullptr; }
  // The opset the graph's nodes are read in: the function's imports inside a function body, else the model's.
  int64_t opsetVersion(std::string_view domain) const;

  std::optional<Shape> shapeOf(const Value* value) { return passes::shapeOf(pass_, value); }
  DataType elemTypeOf(const Value* value) { return passes::elemTypeOf(pass_, value); }

  // A new node in the graph, before `before`, named `nodeName` (made unique) with one output named after
  // `outputBase` (made unique).
  Node* addNode(std::string opType, std::vector<Value*> inputs, const std::string& nodeName,
                const std::string& outputBase, Node* before, std::vector<Attribute> attributes = {});
  // A new constant: an initializer of the graph, or a Constant node before `before` in a function body.
  Value* addConstant(const std::string& base, Tensor tensor, Node* before);

 private:
  PassContext& pass_;
  Graph& graph_;
  const Function* function_;
};

class PatternPass : public Pass {
 public:
  // The driver; pattern passes do not override it.
  Expected<bool> run(PassContext& context) final;

 protected:
  // The ai.onnx op types the pattern is rooted at: the driver calls matchAndRewrite only for them.
  virtual std::span<const std::string_view> rootOps() const = 0;
  // Matches at `root` and rewrites through context.rewriter(), or says why not.
  virtual PatternResult matchAndRewrite(Node& root, PatternContext& context) = 0;
  // Sweeps over every graph until one changes nothing, at most this many; 1 is a single sweep.
  virtual int maxSweeps() const { return 1; }

 private:
  bool isRoot(const Node& node) const;
  bool sweep(Graph& graph, PassContext& context, std::vector<PassSkip>& skips);
};

// The shared loop of the binary fusions (conv-add, conv-mul, matmul-add-to-gemm): tries both operand orders
// of the binary `root`; where one operand is produced by an `producerOp` node, calls `match(producer,
// produced, other)`, and returns the first result that is not noMatch.
template <class Match>
PatternResult matchOperandProducedBy(Node& root, std::string_view producerOp, Match&& match) {
  if (root.inputCount() != 2) return PatternResult::noMatch();
  for (size_t side = 0; side < 2; ++side) {
    Value* produced = root.input(side);
    Node* producer = producerOf(produced, producerOp);
    if (!producer) continue;
    PatternResult result = match(*producer, produced, root.input(1 - side));
    if (!result.isNoMatch()) return result;
  }
  return PatternResult::noMatch();
}

}  // namespace onyx::passes
