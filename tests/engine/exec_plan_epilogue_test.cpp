// Planning step 4, fuse epilogues (exec/plan_epilogue.h): a host step takes the element-wise readers after
// it as long as its kernel accepts them (single readers, SiLU's pair, GELU's five), operands computed before
// it ride along as extra inputs, and the chain stops at pinned values, at operands computed later, on
// devices, and when fusion is off.
#include <gtest/gtest.h>

#include "exec/plan_epilogue.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

struct Fusing {
  explicit Fusing(size_t limit, bool hostMemory = true) {
    FakeTraits traits;
    traits.epilogueLimit = limit;
    fake = std::make_unique<FakeBackend>("fused", hostMemory,
                                         std::map<std::string, FakeTraits>{{"MatMul", traits}});
  }
  std::unique_ptr<GraphPlan> plan(const Model& model, bool fuse = true) {
    PlanContext context = bareContext(model, {fake.get(), &cpu});
    context.fuseEpilogues = fuse;
    return planMainGraph(context, bodies);
  }
  ThreadPool pool{1};
  CpuBackend cpu{pool};
  std::unique_ptr<FakeBackend> fake;
  BodyPlans bodies;
};

// The epilogue's op types; each node is also prepared on the fallback (the CPU), not the fake backend.
std::vector<std::string> epilogueOps(const Step& step) {
  std::vector<std::string> out;
  for (const EpilogueStep& ep : step.epilogue) {
    EXPECT_NE(ep.prepared->variant(), "fake") << ep.node->describe();
    out.push_back(ep.node->opType());
  }
  return out;
}

const char* kActivations = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 4] a, float[4, 4] b) => (float[4, 4] y) <float lo = {0.0}, float hi = {6.0}> {
  m = MatMul(a, b)
  r = Relu(m)
  c = Clip(r, lo, hi)
  y = Tanh(c)
})";

TEST(ExecPlanEpilogue, AStepTakesTheReadersItsKernelAccepts) {
  auto model = parsePlanModel(kActivations);
  ASSERT_TRUE(model);
  Fusing two(2);
  auto plan = two.plan(*model);
  ASSERT_TRUE(plan);
  EXPECT_EQ(describeSteps(*plan), (std::vector<std::string>{"MatMul@fused", "Tanh@cpu"}));
  const Step& matmul = plan->steps[0];
  EXPECT_EQ(epilogueOps(matmul), (std::vector<std::string>{"Relu", "Clip"}));
  EXPECT_EQ(matmul.fusedOps, "+Relu+Clip");
  EXPECT_EQ(matmul.outputs, std::vector<int>{slotNamed(*plan, *model, "c")});  // output 0 is the chain's end
  EXPECT_EQ(slotNamed(*plan, *model, "m"), -1);                                // never materialized
  EXPECT_EQ(matmul.epilogue[0].inputs, std::vector<int>{kChainValue});
  // Clip reads Relu's value from the chain; its constant bounds from their slots when it runs by itself.
  EXPECT_EQ(matmul.epilogue[1].inputs, (std::vector<int>{kChainValue - 1, slotNamed(*plan, *model, "lo"),
                                                         slotNamed(*plan, *model, "hi")}));
  EXPECT_EQ(matmul.inputs.size(), 2u);  // constants are no extra operands
  EXPECT_EQ(matmul.ownInputs, 2u);

  Fusing one(1);
  auto shorter = one.plan(*model);
  ASSERT_TRUE(shorter);
  EXPECT_EQ(describeSteps(*shorter), (std::vector<std::string>{"MatMul@fused", "Clip@cpu", "Tanh@cpu"}));
  EXPECT_EQ(shorter->steps[0].fusedOps, "+Relu");

  Fusing none(0);
  auto declined = none.plan(*model);
  ASSERT_TRUE(declined);
  EXPECT_EQ(describeSteps(*declined),
            (std::vector<std::string>{"MatMul@fused", "Relu@cpu", "Clip@cpu", "Tanh@cpu"}));

  Fusing off(2);
  auto unfused = off.plan(*model, false);
  ASSERT_TRUE(unfused);
  EXPECT_EQ(unfused->steps.size(), 4u);
}

TEST(ExecPlanEpilogue, SiluAndGeluFuseAsOneGroup) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 4] a, float[4, 4] b) => (float[4, 4] y, float[4, 4] z) <float sqrt2 = {1.41421}, float one = {1.0}, float half = {0.5}> {
  m = MatMul(a, b)
  s = Sigmoid(m)
  y = Mul(m, s)
  m2 = MatMul(a, b)
  d = Div(m2, sqrt2)
  e = Erf(d)
  p = Add(e, one)
  t = Mul(m2, p)
  z = Mul(t, half)
})");
  ASSERT_TRUE(model);
  Fusing fusing(5);
  auto plan = fusing.plan(*model);
  ASSERT_TRUE(plan);
  EXPECT_EQ(describeSteps(*plan), (std::vector<std::string>{"MatMul@fused", "MatMul@fused"}));
  EXPECT_EQ(plan->steps[0].fusedOps, "+Sigmoid+Mul");
  EXPECT_EQ(plan->steps[0].epilogue[1].inputs, (std::vector<int>{kChainValue, kChainValue - 1}));  // m * s
  EXPECT_EQ(plan->steps[1].fusedOps, "+Div+Erf+Add+Mul+Mul");
  EXPECT_EQ(plan->steps[1].epilogue[3].inputs, (std::vector<int>{kChainValue, kChainValue - 3}));  // m2 * p

  Fusing four(4);  // GELU's five nodes are all or nothing
  auto partial = four.plan(*model);
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->steps[1].node->output(0)->name(), "m2");
  EXPECT_TRUE(partial->steps[1].epilogue.empty());
}

TEST(ExecPlanEpilogue, AResidualOperandIsAnExtraInput) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 4] a, float[4, 4] b) => (float[4, 4] y) {
  m = MatMul(a, b)
  y = Add(m, a)
})");
  ASSERT_TRUE(model);
  Fusing fusing(1);
  auto plan = fusing.plan(*model);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->steps.size(), 1u);
  const Step& step = plan->steps[0];
  const int a = slotNamed(*plan, *model, "a"), b = slotNamed(*plan, *model, "b");
  EXPECT_EQ(step.inputs, (std::vector<int>{a, b, a}));
  EXPECT_EQ(step.ownInputs, 2u);
  EXPECT_EQ(step.kernelInput(2), kEpilogueOperands);
  EXPECT_EQ(step.epilogue[0].inputs, (std::vector<int>{kChainValue, a}));
}

TEST(ExecPlanEpilogue, TheChainStopsAtPinnedValuesLaterOperandsAndDevices) {
  auto later = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 4] a, float[4, 4] b) => (float[4, 4] y) {
  m = MatMul(a, b)
  n = Neg(a)
  y = Add(m, n)
})");
  ASSERT_TRUE(later);
  Fusing fusing(3);
  auto plan = fusing.plan(*later);
  ASSERT_TRUE(plan);  // n is computed after the MatMul: its step cannot read it
  EXPECT_EQ(describeSteps(*plan), (std::vector<std::string>{"MatMul@fused", "Neg@cpu", "Add@cpu"}));

  auto pinned = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 4] a, float[4, 4] b) => (float[4, 4] m, float[4, 4] y) {
  m = MatMul(a, b)
  y = Relu(m)
})");
  ASSERT_TRUE(pinned);
  Fusing again(3);
  auto kept = again.plan(*pinned);
  ASSERT_TRUE(kept);  // m is a graph output: it must be written as it is
  EXPECT_EQ(describeSteps(*kept), (std::vector<std::string>{"MatMul@fused", "Relu@cpu"}));

  auto model = parsePlanModel(kActivations);
  ASSERT_TRUE(model);
  Fusing device(3, false);
  auto onDevice = device.plan(*model);
  ASSERT_TRUE(onDevice);
  for (const Step& step : onDevice->steps) EXPECT_TRUE(step.epilogue.empty());
}

}  // namespace
}  // namespace onyx::exec::testing
