// Planning step 3, fold (exec/plan_fold.h): which Transposes fold into MatMuls and which Concats into Convs
// or poolings (and which must not), which steps keep their outputs from run to run (constants, shape
// arithmetic, Shape and Size sources), which inputs kernels may pack once, and when kept outputs still hold.
#include <gtest/gtest.h>

#include "exec/plan_fold.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

const Node* producerOf(const Model& model, const std::string& name) {
  return model.graph().findValue(name)->producer();
}

InputFolds foldsOf(const Model& model, const PlanContext& context) {
  const Graph& graph = model.graph();
  OuterReads reads = outerReadsOf(graph);
  ValueFacts facts(graph, reads);
  std::vector<const Node*> order(graph.nodes().begin(), graph.nodes().end());
  return findInputFolds(order, facts, context);
}

struct Planning {
  ThreadPool pool{1};
  CpuBackend cpu{pool};
};

TEST(ExecPlanFold, ATransposeReadOnlyByAMatMulFoldsIntoIt) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 3] a, float[4, 5] b, float[4, 5] k) => (float[3, 5] y, float[5, 4] kt) <float[4, 3] w = {1,2,3,4,5,6,7,8,9,10,11,12}> {
  t = Transpose<perm = [1, 0]>(a)
  y = MatMul(t, b)
  wt = Transpose<perm = [1, 0]>(w)
  u = MatMul(wt, b)
  kt = Transpose<perm = [1, 0]>(k)
  z2 = MatMul(kt, b)
})");
  ASSERT_TRUE(model);
  Planning p;
  PlanContext context = bareContext(*model, {&p.cpu});
  context.fuseEpilogues = true;
  InputFolds folds = foldsOf(*model, context);
  const Node* matmul = producerOf(*model, "y");
  ASSERT_EQ(folds.transposedInputsOf.count(matmul), 1u);
  EXPECT_EQ(folds.transposedInputsOf[matmul], (std::vector<const Node*>{producerOf(*model, "t"), nullptr}));
  EXPECT_EQ(folds.absorbed, (std::unordered_set<const Node*>{producerOf(*model, "t")}));
  // A Transpose of an initializer is constant-folded once instead; one whose output is a graph output must
  // be written.
  EXPECT_EQ(folds.transposedInputsOf.count(producerOf(*model, "u")), 0u);
  EXPECT_EQ(folds.transposedInputsOf.count(producerOf(*model, "z2")), 0u);
  EXPECT_TRUE(folds.concatenatedInputsOf.empty());

  context.fuseEpilogues = false;  // the folds are fusions: off with them
  EXPECT_TRUE(foldsOf(*model, context).absorbed.empty());
}

TEST(ExecPlanFold, AReaderOnADeviceTakesNoFold) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4, 3] a, float[4, 5] b) => (float[3, 5] y) {
  t = Transpose<perm = [1, 0]>(a)
  y = MatMul(t, b)
})");
  ASSERT_TRUE(model);
  Planning p;
  FakeBackend device("device", false, {{"MatMul", {}}});
  PlanContext context = bareContext(*model, {&device, &p.cpu});
  context.fuseEpilogues = true;
  EXPECT_TRUE(foldsOf(*model, context).absorbed.empty());
}

TEST(ExecPlanFold, AConcatAlongChannelsFoldsIntoAConvWithOneGroupOrA2DPooling) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 2, 4, 4] p, float[1, 2, 4, 4] q, float[3, 4, 1, 1] w, float[4, 2, 1, 1] w2) => (float[1, 3, 4, 4] y, float[1, 4, 2, 2] m, float[1, 4, 4, 4] g2, float[1, 2, 8, 4] h, float[1, 4, 4, 4] c4) {
  c = Concat<axis = 1>(p, q)
  y = Conv(c, w)
  c2 = Concat<axis = 1>(p, q)
  m = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(c2)
  c3 = Concat<axis = 1>(p, q)
  g2 = Conv<group = 2>(c3, w2)
  c5 = Concat<axis = 2>(p, q)
  h = Relu(c5)
  c4 = Concat<axis = 1>(p, q)
})");
  ASSERT_TRUE(model);
  Planning p;
  PlanContext context = bareContext(*model, {&p.cpu});
  context.fuseEpilogues = true;
  InputFolds folds = foldsOf(*model, context);
  EXPECT_EQ(folds.concatenatedInputsOf[producerOf(*model, "y")],
            (std::vector<const Node*>{producerOf(*model, "c"), nullptr}));
  EXPECT_EQ(folds.concatenatedInputsOf[producerOf(*model, "m")],
            (std::vector<const Node*>{producerOf(*model, "c2")}));
  // Grouped Convs, other axes and other readers (or none: a graph output) keep the Concat.
  EXPECT_EQ(folds.absorbed,
            (std::unordered_set<const Node*>{producerOf(*model, "c"), producerOf(*model, "c2")}));
}

TEST(ExecPlanFold, ConstantsShapeArithmeticAndShapeSourcesKeepTheirOutputs) {
  auto model = parsePlanModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3] x, float[3] bias) => (float[N, 3] y, int64[1] n, float[3] r) <float[3] w = {1, 2, 3}, int64[1] zero = {0}, float[3] bias = {0, 0, 0}> {
  nw = Neg(w)
  s = Shape(x)
  n = Gather(s, zero)
  y = Add(x, nw)
  b2 = Neg(bias)
  r = Dropout(w)
})");
  ASSERT_TRUE(model);
  Planning p;
  PlanContext context = bareContext(*model, {&p.cpu});
  context.foldConstants = true;
  BodyPlans bodies;
  auto plan = planMainGraph(context, bodies);
  ASSERT_TRUE(plan);
  EXPECT_EQ(stepProducing(*plan, "nw")->fold, Fold::Constant);  // reads an initializer only
  EXPECT_EQ(stepProducing(*plan, "s")->fold, Fold::Source);     // stands while x keeps its dims
  EXPECT_EQ(stepProducing(*plan, "n")->fold, Fold::Shape);      // computed from dims
  EXPECT_EQ(stepProducing(*plan, "y")->fold, Fold::None);       // reads a graph input
  EXPECT_EQ(stepProducing(*plan, "b2")->fold, Fold::None);      // the caller may override bias
  EXPECT_EQ(stepProducing(*plan, "r")->fold, Fold::None);       // random, though it reads a constant
  EXPECT_TRUE(plan->isConstant[size_t(slotNamed(*plan, *model, "nw"))]);
  EXPECT_TRUE(plan->isShapeDerived[size_t(slotNamed(*plan, *model, "n"))]);
  // Add may pack its second input once: the kept output of a constant step.
  EXPECT_EQ(stepProducing(*plan, "y")->constantInputs, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(stepProducing(*plan, "b2")->constantInputs, (std::vector<uint8_t>{0}));

  context.foldConstants = false;
  BodyPlans unfoldedBodies;
  auto unfolded = planMainGraph(context, unfoldedBodies);
  ASSERT_TRUE(unfolded);
  for (const Step& step : unfolded->steps) EXPECT_EQ(step.fold, Fold::None) << step.node->describe();
  EXPECT_EQ(stepProducing(*unfolded, "y")->constantInputs, (std::vector<uint8_t>{0, 0}));
}

TEST(ExecPlanFold, KeptOutputsHoldWhileTheirShapesDo) {
  GraphPlan plan;
  plan.addSlot(nullptr);
  std::vector<RunValue> slots = {TensorValue::allocate(DataType::Float, {2, 3})};
  Step source;
  source.fold = Fold::Source;
  source.inputs = {0};
  source.shapeDims = {2, 3};
  EXPECT_TRUE(keptOutputsHold(plan, source, slots));
  slots[0] = TensorValue::allocate(DataType::Float, {4, 3});
  EXPECT_FALSE(keptOutputsHold(plan, source, slots));

  Step arithmetic;
  arithmetic.fold = Fold::Shape;
  arithmetic.foldedEpoch = 0;
  EXPECT_TRUE(keptOutputsHold(plan, arithmetic, slots));
  plan.shapeEpoch = 1;  // a source saw new dims
  EXPECT_FALSE(keptOutputsHold(plan, arithmetic, slots));

  Step constant;
  constant.fold = Fold::Constant;
  EXPECT_TRUE(keptOutputsHold(plan, constant, slots));
}

}  // namespace
}  // namespace onyx::exec::testing
