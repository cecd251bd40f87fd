// Planning step 5, choose layouts (exec/plan_layout.h): a step keeps output 0 channels-last only when its
// kernel writes that layout (or it is layout-transparent) and every reader takes it; graph outputs stay
// plain, and a reader that takes the layout only to keep it counts only when it keeps it.
#include <gtest/gtest.h>

#include "exec/plan_layout.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

// Per node, by its output's name: whether the step may leave it channels-last, or with `blocks`, whether it
// may leave it in channel blocks of 16 (which only "Conv" takes, as its data input; "WinoConv" is a Conv
// that does not).
std::map<std::string, bool> layoutsOf(const std::string& body, const std::string& outputs = "float[1, 2, 4, 4] y",
                                      bool blocks = false) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 2, 4, 4] x) => ()" +
                              outputs + R"() <float[2, 2, 1, 1] w = {1, 0, 0, 1}> {
)" + body + "}");
  EXPECT_TRUE(model);
  if (!model) return {};
  FakeTraits conv;  // oneDNN's Conv: writes channels-last, reads it as its data input
  conv.producesChannelsLast = true;
  conv.acceptsChannelsLast = {0};
  FakeTraits pool = conv;  // oneDNN's pooling: takes the layout only to keep it
  pool.readsChannelsLastOnlyToKeepIt = true;
  FakeTraits direct = conv;  // a Conv that reads channels-last only
  conv.acceptsBlocked16 = {0, kEpilogueOperands};
  FakeBackend onednn("onednn", true,
                     {{"Conv", conv}, {"ConvTranspose", direct}, {"MaxPool", pool}, {"Relu", {}}, {"Softmax", {}}});
  ThreadPool threads(1);
  CpuBackend cpu(threads);
  BodyPlans bodies;
  auto plan = planMainGraph(bareContext(*model, {&onednn, &cpu}), bodies);
  EXPECT_TRUE(plan);
  if (!plan) return {};
  for (const Step& step : plan->steps)
    EXPECT_FALSE(step.channelsLastOut) << "the step is off in the bare context";
  const Graph& graph = model->graph();
  OuterReads reads = outerReadsOf(graph);
  chooseChannelsLastOutputs(*plan, ValueFacts(graph, reads).pinnedValues(), blocks);
  std::map<std::string, bool> out;
  for (const Step& step : plan->steps) {
    EXPECT_TRUE(!step.blocked16Out || step.channelsLastOut) << "blocks are a kind of channels-last";
    EXPECT_TRUE(blocks || !step.blocked16Out) << "the option is off";
    out[step.node->output(0)->name()] = blocks ? step.blocked16Out : step.channelsLastOut;
  }
  return out;
}

using Layouts = std::map<std::string, bool>;

TEST(ExecPlanLayout, ConvChainsStayChannelsLastThroughTransparentNodes) {
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n r = Relu(c1)\n y = Conv(r, w)\n"),
            (Layouts{{"c1", true}, {"r", true}, {"y", false}}));  // y is a graph output: plain
}

TEST(ExecPlanLayout, OneReaderThatNeedsPlainStorageKeepsTheProducerPlain) {
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n y = Softmax(c1)\n"), (Layouts{{"c1", false}, {"y", false}}));
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n y = Conv(c1, w)\n z = Softmax(c1)\n",
                      "float[1, 2, 4, 4] y, float[1, 2, 4, 4] z"),
            (Layouts{{"c1", false}, {"y", false}, {"z", false}}));
  // Relu would keep it, but its reader does not take it.
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n r = Relu(c1)\n y = Softmax(r)\n"),
            (Layouts{{"c1", false}, {"r", false}, {"y", false}}));
}

TEST(ExecPlanLayout, AReaderThatOnlyKeepsTheLayoutTakesItWhenItKeepsIt) {
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n y = MaxPool<kernel_shape = [1, 1]>(c1)\n"),
            (Layouts{{"c1", false}, {"y", false}}));
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n p = MaxPool<kernel_shape = [1, 1]>(c1)\n y = Conv(p, w)\n"),
            (Layouts{{"c1", true}, {"p", true}, {"y", false}}));
}

TEST(ExecPlanLayout, ChannelBlocksOnlyWhereEveryReaderTakesThem) {
  const std::string outputs = "float[1, 2, 4, 4] y";
  // A chain of Convs that take blocks: all but the graph output.
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n c2 = Conv(c1, w)\n y = Conv(c2, w)\n", outputs, true),
            (Layouts{{"c1", true}, {"c2", true}, {"y", false}}));
  // A second reader that takes channels-last only (the ConvTranspose stands in for a direct Conv): c1 stays
  // channels-last, not blocks; a transparent node never writes blocks, and its reader decides nothing.
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n c2 = ConvTranspose(c1, w)\n y = Conv(c1, w)\n",
                      "float[1, 2, 4, 4] y, float[1, 2, 4, 4] c2", true),
            (Layouts{{"c1", false}, {"c2", false}, {"y", false}}));
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n r = Relu(c1)\n y = Conv(r, w)\n", outputs, true),
            (Layouts{{"c1", false}, {"r", false}, {"y", false}}));
  // Off: the same chain plans channels-last only.
  EXPECT_EQ(layoutsOf("c1 = Conv(x, w)\n c2 = Conv(c1, w)\n y = Conv(c2, w)\n", outputs, false),
            (Layouts{{"c1", true}, {"c2", true}, {"y", false}}));
}

}  // namespace
}  // namespace onyx::exec::testing
