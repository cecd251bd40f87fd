// The pass manager: steps with counters and node counts, fixpoint runs, a failing pass reverted and named
// with the passes before it, undo/redo of each step restoring the printed graph exactly, numeric checks.
#include "passes_test_support.h"

#include "ir/rewriter.h"
#include "passes/pass_util.h"

namespace onyx::passes::testing {
namespace {

const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, 4] x) => (float[N, 12] y) <int64 two = {2}, int64 one = {1}, int64[1] axes = {0}> {
  i = Identity(x)
  s = Shape(i)
  c = Gather(s, one)
  d = Gather(s, two)
  cd = Mul(c, d)
  u = Unsqueeze(cd, axes)
  zero = Constant<value = int64[1] {0}>()
  shape = Concat<axis = 0>(zero, u)
  r = Reshape(i, shape)
  a = Relu(r)
  b = Relu(r)
  y = Add(a, b)
})";

// Edits the graph, then fails: the manager must revert the edit.
class FailingPass final : public Pass {
 public:
  std::string_view name() const override { return "failing"; }
  std::string_view summary() const override { return "renames a node, then fails"; }
  Expected<bool> run(PassContext& context) override {
    Node* first = *context.model().graph().nodes().begin();
    context.rewriter().renameNode(first, "renamed");
    return makeError("something went wrong", first->describe());
  }
};

// Turns every Add into Sub: a numerically wrong rewrite the verification must catch.
class WrongPass final : public Pass {
 public:
  std::string_view name() const override { return "add-to-sub"; }
  std::string_view summary() const override { return "wrong on purpose"; }
  Expected<bool> run(PassContext& context) override {
    bool changed = false;
    for (Node* node : orderedNodes(context.model().graph())) {
      if (node->opType() != "Add") continue;
      Rewriter::NodeSpec spec{
          .opType = "Sub", .name = node->name(), .inputs = node->inputs(), .outputNames = {"tmp"}};
      Node* sub = context.rewriter().addNode(context.model().graph(), spec, node);
      replaceNode(context.rewriter(), node, {sub->output(0)});
      changed = true;
    }
    return changed;
  }
};

TEST(PassManager, StepsRecordCountersNodeCountsAndChanges) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  PipelineResult result = manager.run({"identity-elimination", "dead-code-elimination"});
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_EQ(result.steps.size(), 2u);
  const PassStep& first = result.steps[0];
  EXPECT_EQ(first.pass, "identity-elimination");
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.nodesBefore, 12u);
  EXPECT_EQ(first.nodesAfter, 11u);
  EXPECT_EQ(counter(first, "identities-removed"), 1);
  ASSERT_TRUE(first.changes);
  EXPECT_EQ(first.changes->label(), "identity-elimination");
  EXPECT_FALSE(result.steps[1].changed);
  EXPECT_TRUE(result.steps[1].changes->empty());
  EXPECT_EQ(result.nodesBefore, 12u);
  EXPECT_EQ(result.nodesAfter, 11u);
}

TEST(PassManager, FixpointRepeatsUntilARoundChangesNothing) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  PipelineOptions options;
  options.fixpoint = true;
  // Folding u makes Concat foldable only after constant-folding turned `zero` into an initializer, and
  // CSE then exposes nothing new: the pipeline needs more than one round and then stops by itself.
  PipelineResult result = manager.run(
      {"shape-folding", "common-subexpression-elimination", "dead-code-elimination", "constant-folding"},
      options);
  ASSERT_FALSE(result.error) << result.error->toString();
  EXPECT_TRUE(result.reachedFixpoint);
  EXPECT_GE(result.rounds, 2);
  EXPECT_LT(result.rounds, options.maxRounds);
  for (size_t i = result.steps.size() - 4; i < result.steps.size(); ++i)
    EXPECT_FALSE(result.steps[i].changed);
  PipelineResult again = manager.run(
      {"shape-folding", "common-subexpression-elimination", "dead-code-elimination", "constant-folding"});
  for (const PassStep& step : again.steps) EXPECT_FALSE(step.changed) << step.pass;
}

TEST(PassManager, RoundLimitStopsAFixpointRun) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  PipelineOptions options;
  options.fixpoint = true;
  options.maxRounds = 1;
  PipelineResult result = manager.run({"shape-folding", "dead-code-elimination"}, options);
  EXPECT_EQ(result.rounds, 1);
  EXPECT_FALSE(result.reachedFixpoint);
}

TEST(PassManager, AFailingPassIsRevertedAndNamedWithThePassesBeforeIt) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(createPass("identity-elimination"));
  pipeline.push_back(createPass("dead-code-elimination"));
  pipeline.push_back(std::make_unique<FailingPass>());
  pipeline.push_back(createPass("constant-folding"));
  std::string afterTwo;
  PipelineOptions options;
  options.onStep = [&](const PassStep&) { afterTwo = printModelText(*m); };
  PipelineResult result = manager.runPasses(pipeline, options);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->message,
            "pass 'failing' failed after identity-elimination, dead-code-elimination: something went wrong");
  EXPECT_EQ(result.steps.size(), 2u);
  EXPECT_EQ(printModelText(*m), afterTwo);  // the rename was reverted
  EXPECT_EQ(printModelText(*m).find("renamed"), std::string::npos);
}

TEST(PassManager, UnknownPassesAreErrorsBeforeAnythingRuns) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  std::string before = printModelText(*m);
  PassManager manager(*m);
  PipelineResult result = manager.run({"identity-elimination", "no-such-pass"});
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->message, "unknown pass 'no-such-pass'; `onyx optimize --list` shows the passes");
  EXPECT_TRUE(result.steps.empty());
  EXPECT_EQ(printModelText(*m), before);
}

TEST(PassManager, UndoAndRedoOfEachStepRestoreThePrintedGraphExactly) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  std::vector<std::string> states = {printModelText(*m)};
  PassManager manager(*m);
  PipelineOptions options;
  options.checkStructure = true;
  options.onStep = [&](const PassStep&) { states.push_back(printModelText(*m)); };
  PipelineResult result = manager.run(defaultPipeline(), options);
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_EQ(states.size(), result.steps.size() + 1);
  EXPECT_LT(result.nodesAfter, result.nodesBefore);
  for (size_t i = result.steps.size(); i-- > 0;) {
    result.steps[i].changes->undo();
    EXPECT_EQ(printModelText(*m), states[i]) << "undo of " << result.steps[i].pass;
  }
  for (size_t i = 0; i < result.steps.size(); ++i) {
    result.steps[i].changes->redo();
    EXPECT_EQ(printModelText(*m), states[i + 1]) << "redo of " << result.steps[i].pass;
  }
}

TEST(PassManager, VerifyReportsTheWorstErrorPerOutput) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  PassManager manager(*m);
  PipelineOptions options;
  options.checkStructure = true;
  options.verify.enabled = true;
  options.verify.bindings = {{"N", 2}};
  PipelineResult result = manager.run(defaultPipeline(), options);
  ASSERT_FALSE(result.error) << result.error->toString();
  for (const PassStep& step : result.steps) {
    ASSERT_TRUE(step.verification) << step.pass;
    EXPECT_TRUE(step.verification->ran) << step.verification->notRunReason;
    if (!step.changed) continue;
    ASSERT_EQ(step.verification->outputs.size(), 1u);
    EXPECT_EQ(step.verification->outputs[0].output, "y");
    EXPECT_LE(step.verification->outputs[0].maxAbsError, 1e-6);
  }
}

TEST(PassManager, VerifyRevertsAStepThatChangesTheOutputs) {
  auto m = parse(kModel);
  ASSERT_TRUE(m);
  std::string before = printModelText(*m);
  PassManager manager(*m);
  WrongPass wrong;
  VerifyOptions verify;
  verify.enabled = true;
  auto step = manager.runPass(wrong, {}, {}, verify);
  ASSERT_FALSE(step.ok()) << (step->verification ? step->verification->notRunReason : "no verification");
  EXPECT_NE(step.error().message.find("the pass changed output 'y' beyond rtol 0.0001"), std::string::npos)
      << step.error().message;
  EXPECT_EQ(printModelText(*m), before);
}

TEST(PassManager, ScopeRestrictsTheRewrite) {
  auto m = parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) {
  a = Identity(x)
  b = Identity(a)
  y = Relu(b)
})");
  ASSERT_TRUE(m);
  // The text syntax of onnx 1.12 has no node names: give the nodes their scopes here.
  Rewriter rewriter(*m);
  std::vector<Node*> nodes = orderedNodes(m->graph());
  rewriter.renameNode(nodes[0], "/encoder/Identity");
  rewriter.renameNode(nodes[1], "/decoder/Identity");
  PassStep step = runOnce(*m, "identity-elimination", {}, "/decoder");
  EXPECT_EQ(counter(step, "identities-removed"), 1);
  EXPECT_EQ(printModelText(*m), canonical(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) {
  a = Identity(x)
  y = Relu(a)
})"));
  EXPECT_EQ(orderedNodes(m->graph())[0]->name(), "/encoder/Identity");
}

TEST(PassRegistry, EveryPassHasAKebabCaseNameAndASummary) {
  ASSERT_GE(passRegistry().size(), 6u);
  for (const PassInfo& info : passRegistry()) {
    EXPECT_FALSE(info.summary.empty()) << info.name;
    for (char c : info.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '-') << info.name;
    EXPECT_EQ(createPass(info.name)->name(), info.name);
  }
  for (const std::string& name : defaultPipeline()) EXPECT_TRUE(createPass(name)) << name;
}

}  // namespace
}  // namespace onyx::passes::testing
