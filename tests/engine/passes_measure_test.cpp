// The cost of every step (MeasureOptions): after each step the model runs on the CPU executor for latency,
// the planner's peak bytes, the node count and the worst error against the model before the pipeline.
#include <gtest/gtest.h>

#include "exec/compare.h"
#include "passes/pattern_driver.h"
#include "passes_test_support.h"
#include "support/test_data.h"

namespace onyx::passes::testing {
namespace {

void expectSane(const StepCost& cost, const std::string& where) {
  EXPECT_TRUE(cost.ran) << where << ": " << cost.notRunReason;
  EXPECT_GT(cost.medianMs, 0.0) << where;
  EXPECT_GT(cost.peakBytes, 0) << where;
  EXPECT_GT(cost.nodes, 0u) << where;
  EXPECT_GE(cost.maxAbsError, 0.0) << where;
  EXPECT_TRUE(cost.withinTolerance) << where << ": max abs error " << cost.maxAbsError;
}

TEST(Measure, EveryStepGetsACostAndUnchangedStepsKeepThePreviousOne) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[64, 64] x) => (float[64, 64] y) {
  i = Identity(x)
  a = Neg(i)
  b = Exp(a)
  y = Abs(b)
})");
  PassManager manager(*model);
  PipelineOptions options;
  options.measure.enabled = true;
  options.measure.runs = 3;
  PipelineResult result =
      manager.run({"identity-elimination", "dead-code-elimination", "elementwise-fusion"}, options);
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_TRUE(result.baseline);
  expectSane(*result.baseline, "before");
  EXPECT_EQ(result.baseline->nodes, 4u);
  EXPECT_EQ(result.baseline->maxAbsError, 0.0) << "the baseline is the reference";
  ASSERT_EQ(result.steps.size(), 3u);
  for (const PassStep& step : result.steps) {
    ASSERT_TRUE(step.cost) << step.pass;
    expectSane(*step.cost, step.pass);
    EXPECT_EQ(step.cost->nodes, step.nodesAfter) << step.pass;
  }
  EXPECT_FALSE(result.steps[1].changed);
  EXPECT_EQ(result.steps[1].cost->medianMs, result.steps[0].cost->medianMs) << "not run again";
  // One call in the main graph (its function's body holds the three ops): fewer intermediates at the peak.
  EXPECT_EQ(model->graph().nodeCount(), 1u);
  EXPECT_LT(result.steps[2].cost->peakBytes, result.steps[1].cost->peakBytes);
}

// A test-only miscompile: Relu becomes Neg.
class ReluToNeg final : public PatternPass {
 public:
  std::string_view name() const override { return "test-relu-to-neg"; }
  std::string_view summary() const override { return "Relu becomes Neg (wrong)"; }

 protected:
  std::span<const std::string_view> rootOps() const override {
    static constexpr std::string_view kOps[] = {"Relu"};
    return kOps;
  }
  PatternResult matchAndRewrite(Node& relu, PatternContext& context) override {
    Node* neg = context.addNode("Neg", {relu.input(0)}, "neg", "negated", &relu);
    replaceNode(context.rewriter(), &relu, {neg->output(0)});
    return PatternResult::rewritten("relus-broken");
  }
};

TEST(Measure, AStepThatBreaksTheOutputsShowsItsError) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[8] x) => (float[8] y) {
  y = Relu(x)
})");
  PassManager manager(*model);
  PipelineOptions options;
  options.measure.enabled = true;
  options.measure.runs = 1;
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(std::make_unique<ReluToNeg>());
  PipelineResult result = manager.runPasses(pipeline, options);
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_EQ(result.steps.size(), 1u);
  ASSERT_TRUE(result.steps[0].cost);
  EXPECT_TRUE(result.steps[0].cost->ran);
  EXPECT_FALSE(result.steps[0].cost->withinTolerance);
  EXPECT_GT(result.steps[0].cost->maxAbsError, 0.0);
}

TEST(MeasureModels, Squeezenet11DefaultPipelineFewerNodesWithinTolerance) {
  ONYX_REQUIRE_SHARED(folder, "models/squeezenet1_1");
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto data = exec::loadTestDataSet(**model, folder / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  PassManager manager(**model);
  PipelineOptions options;
  options.measure.enabled = true;
  options.measure.inputs = data->inputs;
  options.measure.runs = 3;
  PipelineResult result = manager.run(defaultPipeline(), options);
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_TRUE(result.baseline);
  expectSane(*result.baseline, "original");
  ASSERT_FALSE(result.steps.empty());
  for (const PassStep& step : result.steps) {
    ASSERT_TRUE(step.cost) << step.pass;
    expectSane(*step.cost, step.pass);
  }
  EXPECT_LT(result.steps.back().cost->nodes, result.baseline->nodes);
  EXPECT_EQ(result.steps.back().cost->nodes, result.nodesAfter);
}

}  // namespace
}  // namespace onyx::passes::testing
