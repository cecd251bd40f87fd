// Planning step 2, place (exec/plan_place.h): the first backend that supports and prepares a node runs it,
// a value is copied into another memory once however many readers it has there, a node's host inputs stay
// on the host, and a whole plan puts device nodes between transfers.
#include <gtest/gtest.h>

#include "exec/plan_place.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

const char* kChain = R"(<ir_version: 8, opset_import: ["" : 17]>
chain (float[N, 64] x) => (float[N, 64] y) {
  a = Relu(x)
  b = Sigmoid(a)
  c = Add(a, b)
  d = Tanh(c)
  y = Mul(d, d)
})";

Step stepFor(const Model& model, const std::string& output) {
  Step step;
  step.node = model.graph().findValue(output)->producer();
  step.opset = 17;
  return step;
}

TEST(ExecPlanPlace, TheFirstBackendThatPreparesTheNodeRunsIt) {
  auto model = parsePlanModel(kChain);
  ASSERT_TRUE(model);
  ThreadPool pool(1);
  FakeBackend device("device", false, {{"Relu", {}}, {"Sigmoid", {}}}, {"Sigmoid"});
  CpuBackend cpu(pool);
  std::vector<Backend*> backends = {&device, &cpu};

  Step relu = stepFor(*model, "a");
  ASSERT_TRUE(prepareOnFirstBackend(relu, backends, {nullptr}).ok());
  EXPECT_EQ(relu.backend, &device);
  EXPECT_EQ(relu.prepared->variant(), "fake");

  Step sigmoid = stepFor(*model, "b");  // the device supports it but declines: the CPU takes it
  ASSERT_TRUE(prepareOnFirstBackend(sigmoid, backends, {nullptr}).ok());
  EXPECT_EQ(sigmoid.backend, &cpu);

  Step declined = stepFor(*model, "b");  // nobody else: the reason it declined
  auto error = prepareOnFirstBackend(declined, {&device}, {nullptr});
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().message, "device declines Sigmoid");

  Step tanh = stepFor(*model, "d");
  auto unsupported = prepareOnFirstBackend(tanh, {&device}, {nullptr});
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.error().message, "no backend supports Tanh at opset 17; the op is not supported yet");
  EXPECT_EQ(unsupported.error().where, tanh.node->describe());
  EXPECT_EQ(tanh.backend, nullptr);
}

TEST(ExecPlanPlace, AValueIsCopiedOncePerMemory) {
  auto model = parsePlanModel(kChain);
  ASSERT_TRUE(model);
  ThreadPool pool(1);
  FakeBackend device("device", false, {});
  CpuBackend cpu(pool);
  GraphPlan plan;
  plan.graph = &model->graph();
  const int x = plan.addSlot(model->graph().findValue("x"));
  Transfers transfers(plan);
  EXPECT_EQ(transfers.placeOn(x, &cpu), x);  // host memory already
  EXPECT_EQ(transfers.placeOn(x, nullptr), x);
  const int up = transfers.placeOn(x, &device);
  EXPECT_NE(up, x);
  EXPECT_EQ(transfers.placeOn(x, &device), up);  // a second reader there shares the copy
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.transfers, 1);
  EXPECT_EQ(plan.steps[0].node, nullptr);
  EXPECT_EQ(plan.steps[0].backend, &device);
  EXPECT_FALSE(plan.steps[0].toHost);
  EXPECT_EQ(plan.steps[0].inputs, std::vector<int>{x});
  EXPECT_EQ(plan.steps[0].outputs, std::vector<int>{up});
  EXPECT_EQ(plan.slotValue[size_t(up)], nullptr);  // a transfer's copy has no value of its own

  // An output of a device step lives on the device: host readers get a copy back.
  Step relu = stepFor(*model, "a");
  relu.backend = &device;
  relu.outputs = {plan.addSlot(model->graph().findValue("a"))};
  transfers.producedBy(relu);
  EXPECT_EQ(transfers.placeOn(relu.outputs[0], &device), relu.outputs[0]);
  const int down = transfers.placeOn(relu.outputs[0], &cpu);
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_TRUE(plan.steps[1].toHost);
  EXPECT_EQ(plan.steps[1].backend, &device);
  EXPECT_EQ(transfers.placeOn(relu.outputs[0], nullptr), down);
}

TEST(ExecPlanPlace, HostInputsOfADeviceNodeStayOnTheHost) {
  auto model = parsePlanModel(kChain);
  ASSERT_TRUE(model);
  FakeTraits readsShapeOnHost;
  readsShapeOnHost.hostInputs = {1};
  FakeBackend device("device", false, {{"Add", readsShapeOnHost}});
  GraphPlan plan;
  plan.graph = &model->graph();
  const int a = plan.addSlot(model->graph().findValue("a"));
  const int b = plan.addSlot(model->graph().findValue("b"));
  Step add = stepFor(*model, "c");
  ASSERT_TRUE(prepareOnFirstBackend(add, {&device}, {nullptr, nullptr}).ok());
  add.inputs = {a, b};
  Transfers transfers(plan);
  transfers.placeInputs(add);
  ASSERT_EQ(plan.steps.size(), 1u);  // only input 0 goes up
  EXPECT_EQ(plan.steps[0].inputs, std::vector<int>{a});
  EXPECT_EQ(add.inputs[0], plan.steps[0].outputs[0]);
  EXPECT_EQ(add.inputs[1], b);
}

TEST(ExecPlanPlace, APlanRunsDeviceNodesBetweenTransfers) {
  auto model = parsePlanModel(kChain);
  ASSERT_TRUE(model);
  ThreadPool pool(1);
  FakeBackend device("device", false, {{"Relu", {}}, {"Tanh", {}}});
  CpuBackend cpu(pool);
  BodyPlans bodies;
  auto plan = planMainGraph(bareContext(*model, {&device, &cpu}), bodies);
  ASSERT_TRUE(plan);
  // x goes up once; a comes down once for its two CPU readers; c goes up for Tanh and d comes down for Mul.
  EXPECT_EQ(describeSteps(*plan), (std::vector<std::string>{"transfer>device", "Relu@device", "transfer>host",
                                                            "Sigmoid@cpu", "Add@cpu", "transfer>device",
                                                            "Tanh@device", "transfer>host", "Mul@cpu"}));
  EXPECT_EQ(plan->transfers, 4);
  // The graph output is on the host: Mul ran on the CPU, no transfer after it.
  EXPECT_EQ(plan->outputSlots, plan->steps.back().outputs);
}

}  // namespace
}  // namespace onyx::exec::testing
