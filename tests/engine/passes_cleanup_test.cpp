// dead-code-elimination, identity-elimination, common-subexpression-elimination and constant-deduplication on
// small textual graphs: before -> after, a second run changes nothing, and the cases where they must not
// fire.
#include "passes_test_support.h"

namespace onyx::passes::testing {
namespace {

const char* kHeader = "<ir_version: 8, opset_import: [\"\" : 17, \"acme\" : 1]>\n";

std::string model(const std::string& graph) {
  return kHeader + graph;
}

// --- dead-code-elimination ---

TEST(DeadCodeElimination, RemovesUnusedChainsAndInitializers) {
  PassStep step = expectRewrite("dead-code-elimination", model(R"(
g (float[N] x) => (float[N] y) <float[1] unused = {2.0}, float[1] w = {3.0}> {
  a = Relu(x)
  b = Mul(a, w)
  y = Neg(x)
})"),
                                model(R"(
g (float[N] x) => (float[N] y) {
  y = Neg(x)
})"));
  EXPECT_EQ(counter(step, "nodes-removed"), 2);
  EXPECT_EQ(counter(step, "initializers-removed"), 2);
}

TEST(DeadCodeElimination, RecursesIntoBodies) {
  expectRewrite("dead-code-elimination", model(R"(
g (float[N] x, bool c) => (float[N] y) {
  y = If(c) <then_branch = t () => (float[N] z) { dead = Relu(x) z = Neg(x) },
             else_branch = e () => (float[N] w) { w = Abs(x) }>
})"),
                model(R"(
g (float[N] x, bool c) => (float[N] y) {
  y = If(c) <then_branch = t () => (float[N] z) { z = Neg(x) },
             else_branch = e () => (float[N] w) { w = Abs(x) }>
})"));
}

TEST(DeadCodeElimination, KeepsOpsOfOtherDomainsWithTheReason) {
  PassStep step = expectUnchanged("dead-code-elimination", model(R"(
g (float[N] x) => (float[N] y) {
  log = acme.Log(x)
  y = Neg(x)
})"));
  EXPECT_NE(skipReasons(step).find("op of domain 'acme' may have side effects"), std::string::npos)
      << skipReasons(step);
}

// --- identity-elimination ---

TEST(IdentityElimination, RemovesIdentitiesAndKeepsTheGraphOutputName) {
  PassStep step = expectRewrite("identity-elimination", model(R"(
g (float[N] x) => (float[N] y) {
  a = Identity(x)
  b = Relu(a)
  y = Identity(b)
})"),
                                model(R"(
g (float[N] x) => (float[N] y) {
  y = Relu(x)
})"));
  EXPECT_EQ(counter(step, "identities-removed"), 2);
}

TEST(IdentityElimination, DoesNotRenameAGraphInputToAGraphOutput) {
  PassStep step = expectUnchanged("identity-elimination", model(R"(
g (float[N] x) => (float[N] y) {
  y = Identity(x)
})"));
  EXPECT_NE(skipReasons(step).find("graph output %y would be renamed to graph input %x"), std::string::npos)
      << skipReasons(step);
}

TEST(IdentityElimination, RemovesInferenceDropoutSameTypeCastAndIdentityTranspose) {
  PassStep step = expectRewrite("identity-elimination", model(R"(
g (float[N, 4] x) => (float[N, 4] y) <bool off = {0}> {
  a = Dropout(x)
  b = Dropout(a, , off)
  c = Cast<to = 1>(b)
  d = Transpose<perm = [0, 1]>(c)
  y = Relu(d)
})"),
                                model(R"(
g (float[N, 4] x) => (float[N, 4] y) <bool off = {0}> {
  y = Relu(x)
})"));
  EXPECT_EQ(counter(step, "dropouts-removed"), 2);
  EXPECT_EQ(counter(step, "casts-removed"), 1);
  EXPECT_EQ(counter(step, "transposes-removed"), 1);
}

TEST(IdentityElimination, KeepsTrainingDropoutRealCastsAndPermutations) {
  PassStep step = expectUnchanged("identity-elimination", model(R"(
g (float[N, 4] x, bool train) => (int32[4, N] y) <bool on = {1}> {
  a = Dropout(x, , on)
  b = Dropout(a, , train)
  c = Cast<to = 6>(b)
  y = Transpose<perm = [1, 0]>(c)
})"));
  std::string reasons = skipReasons(step);
  EXPECT_NE(reasons.find("training_mode is true"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("training_mode %train is not a constant"), std::string::npos) << reasons;
}

TEST(IdentityElimination, RemovesReshapesThatAreNoOpsUnderSymbolicShapes) {
  PassStep step = expectRewrite("identity-elimination", model(R"(
g (float[N, 4] x) => (float[N, 4] y) <int64[2] same = {0, 4}> {
  a = Reshape(x, same)
  b = Flatten<axis = 1>(a)
  y = Relu(b)
})"),
                                model(R"(
g (float[N, 4] x) => (float[N, 4] y) <int64[2] same = {0, 4}> {
  y = Relu(x)
})"));
  EXPECT_EQ(counter(step, "reshapes-removed"), 1);
  EXPECT_EQ(counter(step, "flattens-removed"), 1);
}

TEST(IdentityElimination, KeepsReshapesWhoseShapeIsUnknownWithTheReason) {
  PassStep step = expectUnchanged("identity-elimination", model(R"(
g (float[N, 4] x, int64[2] s, float u) => (float[N, 4] y, float[N, 4] z) <int64[2] keep = {0, 4}> {
  y = Reshape(x, s)
  z = Reshape(u, keep)
})"));
  std::string reasons = skipReasons(step);
  EXPECT_NE(reasons.find("dim 0 of %y unknown"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("shape of %z unknown"), std::string::npos) << reasons;
}

TEST(IdentityElimination, KeepsReshapesThatChangeTheShape) {
  PassStep step = expectUnchanged("identity-elimination", model(R"(
g (float[N, 4] x) => (float[N, 2, 2] y) <int64[3] s = {0, 2, 2}> {
  y = Reshape(x, s)
})"));
  EXPECT_TRUE(step.skips.empty()) << skipReasons(step);
}

// --- common-subexpression-elimination ---

TEST(CommonSubexpressionElimination, MergesNodesWithTheSameOpInputsAndAttributes) {
  PassStep step = expectRewrite("common-subexpression-elimination", model(R"(
g (float[N, 4] x) => (float[N, 4] y) {
  a = Softmax<axis = 1>(x)
  b = Softmax<axis = 1>(x)
  c = Relu(a)
  d = Relu(b)
  y = Add(c, d)
})"),
                                model(R"(
g (float[N, 4] x) => (float[N, 4] y) {
  a = Softmax<axis = 1>(x)
  c = Relu(a)
  y = Add(c, c)
})"));
  EXPECT_EQ(counter(step, "nodes-merged"), 2);
}

TEST(CommonSubexpressionElimination, KeepsDifferentAttributesRandomOpsAndTwoGraphOutputs) {
  PassStep step = expectUnchanged("common-subexpression-elimination", model(R"(
g (float[N, 4] x) => (float[N, 4] y, float[N, 4] z, float[N, 4] r) {
  a = Softmax<axis = 1>(x)
  b = Softmax<axis = 0>(x)
  u = RandomUniformLike(x)
  v = RandomUniformLike(x)
  s = Add(a, b)
  r = Add(u, v)
  y = Neg(s)
  z = Neg(s)
})"));
  EXPECT_NE(skipReasons(step).find("both %z and %y are graph outputs"), std::string::npos)
      << skipReasons(step);
}

// --- constant-deduplication ---

TEST(ConstantDeduplication, IdenticalInitializersShareOneValue) {
  PassStep step = expectRewrite("constant-deduplication", model(R"(
g (float[N, 2] x) => (float[N, 2] y) <float[2] w1 = {1.0, 2.0}, float[2] w2 = {1.0, 2.0}> {
  a = Add(x, w1)
  y = Mul(a, w2)
})"),
                                model(R"(
g (float[N, 2] x) => (float[N, 2] y) <float[2] w1 = {1.0, 2.0}> {
  a = Add(x, w1)
  y = Mul(a, w1)
})"));
  EXPECT_EQ(counter(step, "initializers-removed"), 1);
}

TEST(ConstantDeduplication, KeepsSameBytesOfAnotherTypeOrShape) {
  expectUnchanged("constant-deduplication", model(R"(
g (int32[2] x) => (int32[1, 2] y, float[2] z) <int32[2] a = {0, 0}, float[2] b = {0.0, 0.0}, int32[1, 2] c = {0, 0}> {
  s = Add(x, a)
  y = Add(s, c)
  z = Neg(b)
})"));
}

}  // namespace
}  // namespace onyx::passes::testing
