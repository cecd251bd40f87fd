// constant-folding and shape-folding on small textual graphs: before -> after, a second run changes nothing,
// and the cases where they must not fire, with the reason.
#include "passes_test_support.h"

namespace onyx::passes::testing {
namespace {

const char* kHeader = "<ir_version: 8, opset_import: [\"\" : 17]>\n";

std::string model(const std::string& graph) {
  return kHeader + graph;
}

// Runs passes in order, as the pipeline would.
void runAll(Model& m, const std::vector<std::string>& names) {
  PassManager manager(m);
  PipelineResult result = manager.run(names);
  EXPECT_FALSE(result.error) << result.error->toString();
}

// --- constant-folding ---

TEST(ConstantFolding, ConstantNodesBecomeInitializersAndConstantSubgraphsAreComputed) {
  PassStep step = expectRewrite("constant-folding", model(R"(
g (float[N, 2] x) => (float[N, 2] y) <float[2] w = {1.0, 2.0}> {
  c = Constant<value = float[2] {3.0, 4.0}>()
  s = Add(w, c)
  t = Mul(s, s)
  y = Mul(x, t)
})"),
                                model(R"(
g (float[N, 2] x) => (float[N, 2] y) <float[2] w = {1.0, 2.0}, float[2] t = {16.0, 36.0}> {
  y = Mul(x, t)
})"));
  EXPECT_EQ(counter(step, "constants-to-initializers"), 1);
  EXPECT_EQ(counter(step, "nodes-folded"), 2);
}

TEST(ConstantFolding, FoldedValuesHoldTheComputedNumbers) {
  auto m = parse(model(R"(
g (float[N, 2] x) => (float[N, 2] y) <float[2] w = {1.0, 2.0}> {
  c = Constant<value = float[2] {3.0, 4.0}>()
  s = Add(w, c)
  t = Mul(s, s)
  y = Mul(x, t)
})"));
  ASSERT_TRUE(m);
  runOnce(*m, "constant-folding");
  const Value* t = m->graph().findValue("t");
  ASSERT_TRUE(t && t->initializer());
  auto values = t->initializer()->values<float>();
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], 16.0f);
  EXPECT_EQ(values[1], 36.0f);
  EXPECT_EQ(t->type().toString(), "float32[2]");
}

TEST(ConstantFolding, KeepsLargeResultsRandomOpsAndGraphOutputs) {
  PassOptions small;
  small.constantFoldingSizeLimit = 64;
  auto m = parse(model(R"(
g (float[N] x) => (float[N, 1000] y, float[2] z) <int64[2] shape = {1, 1000}, float[2] w = {1.0, 2.0}> {
  big = ConstantOfShape<value = float[1] {1.0}>(shape)
  noise = RandomNormal<shape = [1000]>()
  a = Add(big, noise)
  xs = Unsqueeze(x, one)
  one = Constant<value = int64[1] {1}>()
  y = Mul(xs, a)
  z = Neg(w)
})"));
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "constant-folding", small);
  std::string reasons = skipReasons(step);
  EXPECT_NE(reasons.find("result of 4000 bytes exceeds the folding limit of 64 bytes"), std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("not deterministic"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("an output is a graph output"), std::string::npos) << reasons;
  EXPECT_EQ(counter(step, "nodes-folded"), 0);
  EXPECT_EQ(counter(step, "constants-to-initializers"), 1);  // `one`, read by Unsqueeze
}

TEST(ConstantFolding, FoldsMultiOutputNodesKeepingEachName) {
  expectRewrite("constant-folding", model(R"(
g (float[2] x) => (float[2] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}> {
  a, b = Split<num_outputs = 2>(w)
  s = Sub(b, a)
  y = Add(x, s)
})"),
                model(R"(
g (float[2] x) => (float[2] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, float[2] s = {2.0, 2.0}> {
  y = Add(x, s)
})"));
}

// --- shape-folding ---

TEST(ShapeFolding, StaticDimsOfSymbolicShapesBecomeConstants) {
  auto m = parse(model(R"(
g (float[N, 3, 4] x) => (float[N, 12] y) <int64 two = {2}, int64 one = {1}, int64[1] zero = {0}, int64[1] axes = {0}> {
  s = Shape(x)
  c = Gather(s, one)
  d = Gather(s, two)
  cd = Mul(c, d)
  u = Unsqueeze(cd, axes)
  shape = Concat<axis = 0>(zero, u)
  y = Reshape(x, shape)
})"));
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "shape-folding");
  EXPECT_TRUE(step.changed);
  runAll(*m, {"dead-code-elimination"});
  EXPECT_EQ(printModelText(*m), canonical(model(R"(
g (float[N, 3, 4] x) => (float[N, 12] y) <int64[2] shape = {0, 12}> {
  y = Reshape(x, shape)
})")));
  EXPECT_FALSE(runOnce(*m, "shape-folding").changed);
}

TEST(ShapeFolding, SymbolicReshapeShapesBecomeConstantsWithZeroAndMinusOne) {
  auto m = parse(model(R"(
g (float[N, 3, 4] x) => (float[M, 4] y, float[N, 12] z) <int64 zero = {0}, int64[1] axes = {0}, int64[1] four = {4}> {
  s = Shape(x)
  n = Gather(s, zero)
  u = Unsqueeze(n, axes)
  flat = Reshape(x, four_neg)
  four_neg = Concat<axis = 0>(minus, four)
  minus = Constant<value = int64[1] {-1}>()
  y = Identity(flat)
  t = Concat<axis = 0>(u, twelve)
  twelve = Constant<value = int64[1] {12}>()
  z = Reshape(x, t)
})"));
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "shape-folding");
  EXPECT_EQ(counter(step, "reshape-shapes-made-constant"), 1);  // z: [N, 12] -> [0, 12]
  EXPECT_NE(skipReasons(step).find("value of %n is symbolic: [N]"), std::string::npos) << skipReasons(step);
  runAll(*m, {"dead-code-elimination"});
  std::string text = printModelText(*m);
  EXPECT_NE(text.find("z = Reshape(x, t_static)"), std::string::npos) << text;
  EXPECT_EQ(text.find("Shape("), std::string::npos) << text;
}

TEST(ShapeFolding, EqualSymbolicValuesAreComputedOnce) {
  auto m = parse(model(R"(
g (float[N, 3] x, float[N, 5] w) => (float[N, 3] y, float[N, 5] z) <int64 zero = {0}> {
  a = Shape(x)
  b = Shape(w)
  n = Gather(a, zero)
  k = Gather(b, zero)
  y = Relu(x)
  z = Relu(w)
  p = Add(n, k)
})"));
  ASSERT_TRUE(m);
  PassStep step = runOnce(*m, "shape-folding");
  EXPECT_EQ(counter(step, "symbolic-values-shared"), 1) << skipReasons(step);
  // p = Add(n, n) now: k's chain is dead.
  std::string text = printModelText(*m);
  EXPECT_NE(text.find("p = Add(n, n)"), std::string::npos) << text;
}

}  // namespace
}  // namespace onyx::passes::testing
