// Planning step 1, schedule (exec/plan_schedule.h): producers before readers whatever the file order,
// file order kept otherwise, bodies' reads of the enclosing graph count as reads, and a cycle is an error
// naming a node on it.
#include <gtest/gtest.h>

#include "exec/plan_schedule.h"
#include "exec_plan_test_util.h"
#include "ir/rewriter.h"

namespace onyx::exec::testing {
namespace {

Node* producerOf(const Model& model, const std::string& name) {
  return model.graph().findValue(name)->producer();
}

std::vector<std::string> scheduledOutputs(const Graph& graph, const OuterReads& reads) {
  auto order = scheduleNodes(graph, reads);
  EXPECT_TRUE(order.ok()) << order.error().toString();
  std::vector<std::string> out;
  if (order.ok())
    for (const Node* node : *order) out.push_back(node->output(0)->name());
  return out;
}

const char* kDiamond = R"(<ir_version: 8, opset_import: ["" : 17]>
diamond (float[4] x) => (float[4] y) {
  a = Relu(x)
  b = Neg(x)
  c = Add(a, b)
  y = Tanh(c)
})";

TEST(ExecPlanSchedule, KeepsTheFileOrderWhenItIsTopological) {
  auto model = parsePlanModel(kDiamond);
  ASSERT_TRUE(model);
  const Graph& graph = model->graph();
  EXPECT_EQ(scheduledOutputs(graph, outerReadsOf(graph)), (std::vector<std::string>{"a", "b", "c", "y"}));
}

TEST(ExecPlanSchedule, ProducersComeBeforeTheirReaders) {
  auto model = parsePlanModel(kDiamond);
  ASSERT_TRUE(model);
  Rewriter rw(*model);
  rw.moveBefore(producerOf(*model, "y"), producerOf(*model, "a"));  // file order: y a b c
  rw.moveBefore(producerOf(*model, "c"), producerOf(*model, "a"));  // y c a b
  rw.moveBefore(producerOf(*model, "b"), producerOf(*model, "a"));  // y c b a
  const Graph& graph = model->graph();
  // b and a read only x: they keep their file order (b first); c waits for both, y for c.
  EXPECT_EQ(scheduledOutputs(graph, outerReadsOf(graph)), (std::vector<std::string>{"b", "a", "c", "y"}));
}

TEST(ExecPlanSchedule, ANodeRunsAfterWhatItsBodiesRead) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x, bool c) => (float[N] y) {
  t = Relu(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(x) }>
})");
  ASSERT_TRUE(model);
  Rewriter rw(*model);
  rw.moveBefore(producerOf(*model, "y"), producerOf(*model, "t"));  // the If first in the file
  const Graph& graph = model->graph();
  OuterReads reads = outerReadsOf(graph);
  const Node* ifNode = producerOf(*model, "y");
  ASSERT_EQ(reads[ifNode].size(), 2u);
  EXPECT_EQ(reads[ifNode][0]->name(), "t");
  EXPECT_EQ(reads[ifNode][1]->name(), "x");
  EXPECT_EQ(scheduledOutputs(graph, reads), (std::vector<std::string>{"t", "y"}));
  // Without the bodies' reads nothing orders the two: the file order stands.
  EXPECT_EQ(scheduledOutputs(graph, OuterReads{}), (std::vector<std::string>{"y", "t"}));
}

TEST(ExecPlanSchedule, ACycleIsAnErrorNamingANodeOnIt) {
  auto model = parsePlanModel(kDiamond);
  ASSERT_TRUE(model);
  Rewriter rw(*model);
  Node* relu = producerOf(*model, "a");
  rw.setInput(relu, 0, model->graph().findValue("c"));  // a = Relu(c), c = Add(a, b)
  const Graph& graph = model->graph();
  auto order = scheduleNodes(graph, outerReadsOf(graph));
  ASSERT_FALSE(order.ok());
  EXPECT_EQ(order.error().message, "the graph has a cycle through this node");
  EXPECT_EQ(order.error().where, relu->describe());
}

}  // namespace
}  // namespace onyx::exec::testing
