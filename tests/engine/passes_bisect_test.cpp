// The debug counter (PassOptions::rewriteLimit) and pipeline bisection: a pass stops after its first K
// rewrites, and bisection names the step and the single rewrite that breaks a model's outputs.
#include <gtest/gtest.h>

#include "passes/bisect.h"
#include "passes/pattern_driver.h"
#include "passes_test_support.h"

namespace onyx::passes::testing {
namespace {

// A test-only pattern that rebuilds every Relu as a new node, and miscompiles its third match into a
// Sigmoid. It counts matches per object: bisection makes a fresh one for every application.
class BrokenOnThirdMatch final : public PatternPass {
 public:
  std::string_view name() const override { return "test-broken-on-third-match"; }
  std::string_view summary() const override { return "Rebuilds Relus; the third becomes a Sigmoid"; }

 protected:
  std::span<const std::string_view> rootOps() const override {
    static constexpr std::string_view kOps[] = {"Relu"};
    return kOps;
  }
  PatternResult matchAndRewrite(Node& relu, PatternContext& context) override {
    ++matches_;
    Node* made = context.addNode(matches_ == 3 ? "Sigmoid" : "Relu", {relu.input(0)},
                                 relu.name() + "_rebuilt", relu.output(0)->name() + "_rebuilt", &relu);
    replaceNode(context.rewriter(), &relu, {made->output(0)});
    return PatternResult::rewritten("relus-rebuilt");
  }

 private:
  int matches_ = 0;
};

const char* kReluChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 4] x) => (float[2, 4] y) {
  i = Identity(x)
  a = Relu(i)
  b = Relu(a)
  c = Relu(b)
  d = Relu(c)
  y = Relu(d)
})";

TEST(RewriteLimit, StopsAPatternPassAfterItsFirstKRewrites) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  a = Transpose <perm = [1, 0]> (x)
  b = Transpose <perm = [1, 0]> (a)
  c = Transpose <perm = [1, 0]> (b)
  d = Transpose <perm = [1, 0]> (c)
  e = Transpose <perm = [1, 0]> (d)
  f = Transpose <perm = [1, 0]> (e)
  y = Relu(f)
})");
  PassOptions options;
  options.rewriteLimit = 1;
  PassStep step = runOnce(*model, "transpose-cancellation", options);
  EXPECT_TRUE(step.stoppedAtRewriteLimit);
  ASSERT_EQ(step.rewrites.size(), 1u);
  EXPECT_EQ(step.rewrites[0].index, 1);
  EXPECT_EQ(step.rewrites[0].root.opType, "Transpose");
  EXPECT_EQ(printModelText(*model), canonical(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  c = Transpose <perm = [1, 0]> (x)
  d = Transpose <perm = [1, 0]> (c)
  e = Transpose <perm = [1, 0]> (d)
  f = Transpose <perm = [1, 0]> (e)
  y = Relu(f)
})"));
}

TEST(RewriteLimit, ZeroMakesNoRewriteAndNoLimitMakesThemAll) {
  auto model = parse(kReluChain);
  std::string before = printModelText(*model);
  PassManager manager(*model);
  BrokenOnThirdMatch none;
  PassOptions zero;
  zero.rewriteLimit = 0;
  auto step = manager.runPass(none, {}, zero);
  ASSERT_TRUE(step.ok());
  EXPECT_FALSE(step->changed);
  EXPECT_TRUE(step->stoppedAtRewriteLimit);
  EXPECT_EQ(printModelText(*model), before);
  BrokenOnThirdMatch all;
  auto full = manager.runPass(all);
  ASSERT_TRUE(full.ok());
  EXPECT_FALSE(full->stoppedAtRewriteLimit);
  ASSERT_EQ(full->rewrites.size(), 5u);
  EXPECT_EQ(full->rewrites[2].root.name, "");  // the text syntax leaves nodes unnamed
  ASSERT_EQ(full->rewrites[2].added.size(), 1u);
  EXPECT_EQ(full->rewrites[2].added[0].opType, "Sigmoid");
  ASSERT_EQ(full->rewrites[2].removed.size(), 1u);
  EXPECT_EQ(full->rewrites[2].removed[0].id, full->rewrites[2].root.id);
}

std::vector<BisectStep> fivePassPipeline() {
  std::vector<BisectStep> pipeline = registeredSteps({"identity-elimination", "dead-code-elimination"});
  pipeline.push_back({[] { return std::make_unique<BrokenOnThirdMatch>(); }, {}, {}});
  for (auto& step : registeredSteps({"constant-deduplication", "common-subexpression-elimination"}))
    pipeline.push_back(std::move(step));
  return pipeline;
}

TEST(Bisect, NamesTheStepAndTheThirdRewriteOfAPlantedMiscompile) {
  auto model = parse(kReluChain);
  std::string before = printModelText(*model);
  auto result = bisectPipeline(*model, fivePassPipeline(), {});
  ASSERT_TRUE(result.ok()) << result.error().toString();
  EXPECT_EQ(printModelText(*model), before) << "bisection works on a copy";
  EXPECT_TRUE(result->broken);
  EXPECT_EQ(result->step, 3u);
  EXPECT_EQ(result->pass, "test-broken-on-third-match");
  EXPECT_EQ(result->rewritesInStep, 5);
  ASSERT_TRUE(result->rewriteFound) << result->whyNoRewrite;
  EXPECT_EQ(result->rewrite.index, 3);
  // The third Relu of the chain (after identity-elimination removed the Identity): the one reading b.
  const Node* third = nullptr;
  for (const Node* node : model->graph().nodes())
    if (node->opType() == "Relu" && node->input(0)->name() == "b") third = node;
  ASSERT_TRUE(third);
  EXPECT_EQ(result->rewrite.root.id, third->id());
  ASSERT_EQ(result->rewrite.removed.size(), 1u);
  EXPECT_EQ(result->rewrite.removed[0].id, third->id());
  ASSERT_EQ(result->rewrite.added.size(), 1u);
  EXPECT_EQ(result->rewrite.added[0].opType, "Sigmoid");
  ASSERT_FALSE(result->rewriteErrors.empty());
  EXPECT_FALSE(result->rewriteErrors[0].ok);
  EXPECT_GT(result->rewriteErrors[0].maxAbsError, 0.1);
}

TEST(Bisect, ReportsNothingWhenThePipelineKeepsTheOutputs) {
  auto model = parse(kReluChain);
  auto result =
      bisectPipeline(*model, registeredSteps({"identity-elimination", "dead-code-elimination"}), {});
  ASSERT_TRUE(result.ok()) << result.error().toString();
  EXPECT_FALSE(result->broken);
  EXPECT_EQ(result->stepsRun, 2u);
  ASSERT_EQ(result->errors.size(), 1u);
  EXPECT_TRUE(result->errors[0].ok);
}

}  // namespace
}  // namespace onyx::passes::testing
