// The pattern driver and the manager's bookkeeping: the driver records counters and skip reasons, visits
// nested bodies, filters by scope (a nameless body node lies in its owner's scope), refuses roots whose
// attributes refer to the calling function's, and repeats sweeps to a fixpoint when a pattern asks; the
// manager takes "changed" from the change log and reports a structural error with the pass's name; the
// whole-graph cleanups work inside bodies and functions without crossing scopes.
#include "passes_test_support.h"

#include "ir/rewriter.h"
#include "passes/pattern_driver.h"

namespace onyx::passes::testing {
namespace {

// Edits a node and says it changed nothing: the manager must still record an undoable step.
class SilentEditPass final : public Pass {
 public:
  std::string_view name() const override { return "silent-edit"; }
  std::string_view summary() const override { return "sets an attribute on the first node, returns false"; }
  Expected<bool> run(PassContext& context) override {
    context.rewriter().setAttribute(*context.model().graph().nodes().begin(), Attribute::ofInt("marker", 1));
    return false;
  }
};

// Rewires the first node's input to a value nothing defines: verify() must catch it.
class BreakingPass final : public Pass {
 public:
  std::string_view name() const override { return "dangling-input"; }
  std::string_view summary() const override { return "makes a node read an undefined value"; }
  Expected<bool> run(PassContext& context) override {
    Graph& graph = context.model().graph();
    Value* ghost = context.rewriter().addUndefinedValue(graph, "ghost");
    context.rewriter().setInput(*graph.nodes().begin(), 0, ghost);
    return true;
  }
};

// Neg(Neg(x)) -> x, innermost pair first: in a chain stored outermost first, a sweep removes only the
// innermost pair, which exposes the next pair to a node the sweep has visited already.
class DoubleNegation final : public PatternPass {
 public:
  explicit DoubleNegation(int sweeps) : sweeps_(sweeps) {}
  std::string_view name() const override { return "double-negation"; }
  std::string_view summary() const override { return "Neg(Neg(x)) is x"; }

 protected:
  std::span<const std::string_view> rootOps() const override {
    static constexpr std::string_view kOps[] = {"Neg"};
    return kOps;
  }
  PatternResult matchAndRewrite(Node& outer, PatternContext& context) override {
    Node* inner = producerOf(outer.input(0), "Neg");
    if (!inner) return PatternResult::noMatch();
    if (inner->output(0)->uses().size() != 1) return PatternResult::skipped("the inner Neg has other uses");
    if (producerOf(inner->input(0), "Neg")) return PatternResult::skipped("an inner pair goes first");
    if (whyNotReplaceable(outer, {inner->input(0)})) return PatternResult::skipped("a graph output");
    replaceNode(context.rewriter(), &outer, {inner->input(0)}, {inner});
    return PatternResult::rewritten("negations-removed");
  }
  int maxSweeps() const override { return sweeps_; }

 private:
  int sweeps_;
};

const char* kChain = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  a = Neg(x)
  b = Neg(a)
  c = Neg(b)
  d = Neg(c)
  y = Relu(d)
})";

const char* kOutermostFirst = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Relu(d)
  d = Neg(c)
  c = Neg(b)
  b = Neg(a)
  a = Neg(x)
})";

TEST(PatternDriver, OneSweepVisitsEachNodeOnce) {
  // Stored innermost first, one sweep removes both pairs: b (with a), then d (with c, which reads x now).
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  DoubleNegation pattern(1);
  auto step = manager.runPass(pattern, {}, {}, {}, true);
  ASSERT_TRUE(step.ok()) << step.error().toString();
  EXPECT_EQ(counter(*step, "negations-removed"), 2);
  EXPECT_EQ(printModelText(*m), canonical(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) { y = Relu(x) })"));

  // Stored outermost first, d and c are visited while an inner pair still stands: only b's pair goes.
  auto reversed = parse(kOutermostFirst);
  ASSERT_TRUE(reversed);
  PassManager reversedManager(*reversed);
  auto single = reversedManager.runPass(pattern, {}, {}, {}, true);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(counter(*single, "negations-removed"), 1);
  EXPECT_EQ(reversed->graph().nodeCount(), 3u);
  EXPECT_NE(skipReasons(*single).find("an inner pair goes first"), std::string::npos) << skipReasons(*single);
}

TEST(PatternDriver, RepeatsSweepsUntilNothingChangesWhenThePatternAsks) {
  auto m = parse(kOutermostFirst);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  DoubleNegation pattern(5);
  auto step = manager.runPass(pattern, {}, {}, {}, true);
  ASSERT_TRUE(step.ok()) << step.error().toString();
  EXPECT_EQ(counter(*step, "negations-removed"), 2);
  EXPECT_EQ(m->graph().nodeCount(), 1u);
  // The first sweep's skips were rewritten by the second: only the last sweep's skips are reported.
  EXPECT_TRUE(step->skips.empty()) << skipReasons(*step);
  auto again = manager.runPass(pattern, {}, {}, {}, true);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->changed);
}

TEST(PatternDriver, RecordsTheSkipReasonAgainstTheRootAndVisitsNestedBodies) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, bool c) => (float[2] y) {
  y = If (c) <then_branch = outer_then () => (float[2] t) {
    t = If (c) <then_branch = inner_then () => (float[2] u) {
      a = Neg(x)
      b = Neg(a)
      u = Add(a, b)
    }, else_branch = inner_else () => (float[2] v) { v = Neg(x) }>
  }, else_branch = outer_else () => (float[2] w) {
    p = Neg(x)
    q = Neg(p)
    w = Relu(q)
  }>
})");
  ASSERT_TRUE(m);
  PassManager manager(*m);
  DoubleNegation pattern(1);
  auto step = manager.runPass(pattern, {}, {}, {}, true);
  ASSERT_TRUE(step.ok()) << step.error().toString();
  EXPECT_EQ(counter(*step, "negations-removed"), 1);  // in outer_else
  ASSERT_EQ(step->skips.size(), 1u);                  // in inner_then, two levels down
  EXPECT_EQ(step->skips[0].reason, "the inner Neg has other uses");
  EXPECT_NE(step->skips[0].where.find("Neg"), std::string::npos);
  EXPECT_NE(printModelText(*m).find("w = Relu(x)"), std::string::npos) << printModelText(*m);
}

TEST(PatternDriver, ANamelessBodyNodeLiesInTheScopeOfItsOwner) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, bool c) => (float[2] y) {
  y = If (c) <then_branch = then_body () => (float[2] t) { a = Identity(x)
    t = Relu(a) }, else_branch = else_body () => (float[2] e) { e = Neg(x) }>
})";
  for (std::string name : {"/encoder/If", "/decoder/If"}) {
    auto m = parse(text);
    ASSERT_TRUE(m);
    Rewriter rewriter(*m);
    rewriter.renameNode(*m->graph().nodes().begin(), name);
    PassStep step = runOnce(*m, "identity-elimination", {}, "/encoder");
    EXPECT_EQ(counter(step, "identities-removed"), name == "/encoder/If" ? 1 : 0) << name;
  }
}

TEST(PatternDriver, ARootReadingTheCallersAttributesIsSkippedWithTheReason) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[2, 3] x) => (float[3, 2] y) { y = local.Flip <p = [1, 0]> (x) }
<domain: "local", opset_import: ["" : 17]>
Flip <p> (a) => (b) {
  t = Transpose <perm = [1, 0]> (a)
  u = Transpose <perm: ints = @p> (t)
  b = Transpose <perm = [1, 0]> (u)
})");
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "transpose-cancellation");
  // u's perm is the caller's; t -> u is not merged and b -> u not either, since u's perm is unknown here.
  EXPECT_FALSE(step.changed) << printModelText(*m);
  EXPECT_NE(skipReasons(step).find("attribute 'perm' refers to attribute 'p' of the calling function"),
            std::string::npos)
      << skipReasons(step);
}

TEST(PassManager, APassThatEditsButReturnsFalseStillGetsAnUndoableStep) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  std::string before = printModelText(*m);
  PassManager manager(*m);
  SilentEditPass pass;
  auto step = manager.runPass(pass, {}, {}, {}, true);
  ASSERT_TRUE(step.ok());
  EXPECT_TRUE(step->changed);
  ASSERT_TRUE(step->changes);
  EXPECT_FALSE(step->changes->empty());
  std::string after = printModelText(*m);
  EXPECT_NE(after, before);
  step->changes->undo();
  EXPECT_EQ(printModelText(*m), before);
  step->changes->redo();
  EXPECT_EQ(printModelText(*m), after);
}

TEST(PassManager, AStructuralErrorIsReportedWithThePassNameAndReverted) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  std::string before = printModelText(*m);
  PassManager manager(*m);
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(createPass("identity-elimination"));
  pipeline.push_back(std::make_unique<BreakingPass>());
  PipelineOptions options;
  options.checkStructure = true;
  PipelineResult result = manager.runPasses(pipeline, options);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(
      result.error->message.rfind("pass 'dangling-input' failed after identity-elimination: the pass left "
                                  "the model invalid: graph 'g': input 'ghost' of Neg",
                                  0),
      0u)
      << result.error->message;
  EXPECT_EQ(printModelText(*m), before);

  // Off, the same pass goes through: the check is what caught it.
  auto unchecked = parse(kChain);
  PassManager uncheckedManager(*unchecked);
  options.checkStructure = false;
  EXPECT_FALSE(uncheckedManager.runPasses(pipeline, options).error);
}

TEST(WholeGraphPasses, DeadCodeInAFunctionBodyGoesButWhatItsOutputsReadStays) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.F (x) }
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  unused = Neg(a)
  b = Relu(a)
})");
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "dead-code-elimination");
  EXPECT_EQ(counter(step, "nodes-removed"), 1);
  EXPECT_EQ(printModelText(*m), canonical(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.F (x) }
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) { b = Relu(a) })"));
  EXPECT_FALSE(runOnce(*m, "dead-code-elimination").changed);
}

TEST(WholeGraphPasses, CseMergesWithinABodyButNotABodyNodeWithItsOuterTwin) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, bool c) => (float[2] y, float[2] z) {
  z = Neg(x)
  y = If (c) <then_branch = then_body () => (float[2] t) {
    n1 = Neg(x)
    n2 = Neg(x)
    t = Add(n1, n2)
  }, else_branch = else_body () => (float[2] e) { e = Relu(x) }>
})");
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "common-subexpression-elimination");
  EXPECT_EQ(counter(step, "nodes-merged"), 1);
  EXPECT_EQ(printModelText(*m), canonical(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x, bool c) => (float[2] y, float[2] z) {
  z = Neg(x)
  y = If (c) <then_branch = then_body () => (float[2] t) {
    n1 = Neg(x)
    t = Add(n1, n1)
  }, else_branch = else_body () => (float[2] e) { e = Relu(x) }>
})"));
}

}  // namespace
}  // namespace onyx::passes::testing
