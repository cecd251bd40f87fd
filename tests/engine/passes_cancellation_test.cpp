// transpose-cancellation, squeeze-unsqueeze-cancellation, reshape-chain-fusion and
// broadcast-reduction-elimination on small textual graphs: before -> after, the cases where they must not
// fire (with the reason), a second run that changes nothing, and unchanged numerics.
#include "passes_fusion_support.h"

namespace onyx::passes::fusion_testing {
namespace {

TEST(TransposeCancellation, InversePairDisappears) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 4] x) => (float[2, 3, 4] y) {
  a = Transpose <perm = [1, 0, 2]> (x)
  b = Transpose <perm = [1, 0, 2]> (a)
  y = Relu(b)
})");
  auto result = runPass(*model, "transpose-cancellation");
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.counter("transpose-pairs-removed"), 1);
  EXPECT_EQ(summary(*model), "y = Relu(x)\n-> y\n");
  EXPECT_FALSE(runPass(*model, "transpose-cancellation").changed);
}

TEST(TransposeCancellation, ChainBecomesOneTransposeWithTheComposedPerm) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 4] x) => (float[4, 2, 3] y) {
  a = Transpose <perm = [0, 2, 1]> (x)
  y = Transpose <perm = [1, 0, 2]> (a)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "transpose-cancellation");
  EXPECT_EQ(result.counter("transposes-merged"), 1);
  EXPECT_EQ(summary(*model), "y = Transpose(x) perm=[2, 0, 1]\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({2, 3, 4}, 1)}});
  EXPECT_FALSE(runPass(*model, "transpose-cancellation").changed);
  EXPECT_EQ(checkerError(*model), "");
}

TEST(TransposeCancellation, TwoDimensionalTransposeFoldsIntoGemm) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3, 2] a, float[3, 5] b) => (float[2, 5] y) {
  t = Transpose <perm = [1, 0]> (a)
  y = Gemm <transB = 0> (t, b)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "transpose-cancellation");
  EXPECT_EQ(result.counter("transposes-folded-into-gemm"), 1);
  EXPECT_EQ(summary(*model), "y = Gemm(a, b) transB=0 transA=1\n-> y\n");
  expectSameOutputs(*before, *model, {{"a", seeded({3, 2}, 2)}, {"b", seeded({3, 5}, 3)}});
}

TEST(TransposeCancellation, KeepsAPairWhoseResultIsAGraphOutputNamedLikeAnInput) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  a = Transpose <perm = [1, 0]> (x)
  y = Transpose <perm = [1, 0]> (a)
})");
  auto result = runPass(*model, "transpose-cancellation");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_NE(result.skips[0].reason.find("is a graph output"), std::string::npos) << result.reasons();
}

TEST(TransposeCancellation, ImplicitPermNeedsTheRank) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3] x) => (float[N, 3] y) {
  a = Transpose (x)
  b = Transpose (a)
  y = Relu(b)
})");
  // The rank comes from the declared type, so the default (reversed) perm is known and the pair cancels.
  auto result = runPass(*model, "transpose-cancellation");
  EXPECT_EQ(result.counter("transpose-pairs-removed"), 1);
  EXPECT_EQ(summary(*model), "y = Relu(x)\n-> y\n");
}

TEST(SqueezeUnsqueezeCancellation, UnsqueezeUndoingSqueezeDisappears) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, 4] x) => (float[N, 1, 4] y) {
  axes = Constant <value = int64[1] {1}> ()
  s = Squeeze(x, axes)
  u = Unsqueeze(s, axes)
  y = Relu(u)
})");
  auto result = runPass(*model, "squeeze-unsqueeze-cancellation");
  EXPECT_EQ(result.counter("squeeze-unsqueeze-pairs-removed"), 1);
  EXPECT_EQ(summary(*model), "axes = Constant()\ny = Relu(x)\n-> y\n");
  EXPECT_FALSE(runPass(*model, "squeeze-unsqueeze-cancellation").changed);
}

TEST(SqueezeUnsqueezeCancellation, SqueezeUndoingUnsqueezeWithNegativeAxes) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) {
  a1 = Constant <value = int64[1] {-1}> ()
  a2 = Constant <value = int64[1] {2}> ()
  u = Unsqueeze(x, a1)
  s = Squeeze(u, a2)
  y = Relu(s)
})";
  auto before = parse(text);
  auto model = parse(text);
  EXPECT_EQ(runPass(*model, "squeeze-unsqueeze-cancellation").counter("squeeze-unsqueeze-pairs-removed"), 1);
  expectSameOutputs(*before, *model, {{"x", seeded({3, 4}, 4)}});
}

TEST(SqueezeUnsqueezeCancellation, DifferentAxesAreNotAnIdentity) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, 4] x) => (float[N, 4, 1] y) {
  a1 = Constant <value = int64[1] {1}> ()
  a2 = Constant <value = int64[1] {2}> ()
  s = Squeeze(x, a1)
  y = Unsqueeze(s, a2)
})");
  auto result = runPass(*model, "squeeze-unsqueeze-cancellation");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "the axes differ, so the pair is not an identity");
}

TEST(ReshapeChainFusion, ReshapeAfterReshapeReadsTheOriginal) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 4] x) => (float[4, 6] y) {
  s1 = Constant <value = int64[2] {6, 4}> ()
  s2 = Constant <value = int64[2] {4, -1}> ()
  a = Reshape(x, s1)
  y = Reshape(a, s2)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "reshape-chain-fusion");
  EXPECT_EQ(result.counter("reshapes-merged"), 1);
  EXPECT_EQ(summary(*model), "s1 = Constant()\ns2 = Constant()\ny = Reshape(x, s2)\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({2, 3, 4}, 5)}});
  EXPECT_FALSE(runPass(*model, "reshape-chain-fusion").changed);
}

TEST(ReshapeChainFusion, FlattenThenReshapeWithASymbolicTarget) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, 4] x) => (float[N, 12] y) {
  f = Flatten <axis = 2> (x)
  shape = Shape(x)
  i0 = Constant <value = int64[1] {0}> ()
  n = Gather(shape, i0)
  minus1 = Constant <value = int64[1] {-1}> ()
  target = Concat <axis = 0> (n, minus1)
  y = Reshape(f, target)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "reshape-chain-fusion");
  EXPECT_EQ(result.counter("reshapes-merged"), 1) << result.reasons();
  expectSameOutputs(*before, *model, {{"x", seeded({2, 3, 4}, 6)}});
}

TEST(ReshapeChainFusion, ZeroInTheTargetCopiesADimOfTheIntermediate) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 4] x) => (float[6, 4] y) {
  s1 = Constant <value = int64[2] {6, 4}> ()
  s2 = Constant <value = int64[2] {0, 4}> ()
  a = Reshape(x, s1)
  y = Reshape(a, s2)
})");
  auto result = runPass(*model, "reshape-chain-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "target shape has a 0 entry, which copies a dim of the intermediate");
}

TEST(BroadcastReductionElimination, ReduceSumOverSizeOneAxesDisappears) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, 4] x) => (float[N, 1, 4] y) {
  axes = Constant <value = int64[1] {1}> ()
  r = ReduceSum <keepdims = 1> (x, axes)
  y = Relu(r)
})");
  auto result = runPass(*model, "broadcast-reduction-elimination");
  EXPECT_EQ(result.counter("reductions-removed"), 1);
  EXPECT_EQ(summary(*model), "axes = Constant()\ny = Relu(x)\n-> y\n");
  EXPECT_FALSE(runPass(*model, "broadcast-reduction-elimination").changed);
}

TEST(BroadcastReductionElimination, SumToTheShapeTheInputAlreadyHas) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, 4] x) => (float[N, 1, 4] y) {
  axes = Constant <value = int64[1] {1}> ()
  r = ReduceSum <keepdims = 0> (x, axes)
  shape = Shape(x)
  back = Reshape(r, shape)
  y = Relu(back)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "broadcast-reduction-elimination");
  EXPECT_EQ(result.counter("sum-to-reshapes-removed"), 1) << result.reasons();
  EXPECT_EQ(summary(*model), "axes = Constant()\nshape = Shape(x)\ny = Relu(x)\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({3, 1, 4}, 7)}});
}

TEST(BroadcastReductionElimination, SymbolicReducedAxisIsNotKnownToBeOne) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, M, 4] x) => (float[N, 1, 4] y) {
  axes = Constant <value = int64[1] {1}> ()
  y = ReduceSum <keepdims = 1> (x, axes)
})");
  auto result = runPass(*model, "broadcast-reduction-elimination");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "reduced axis 1 of 'x' has size M");
}

TEST(BroadcastReductionElimination, RealReductionsAreNotCandidates) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, 4] x) => (float[N, 1, 4] y) {
  axes = Constant <value = int64[1] {1}> ()
  y = ReduceSum <keepdims = 1> (x, axes)
})");
  auto result = runPass(*model, "broadcast-reduction-elimination");
  EXPECT_FALSE(result.changed);
  EXPECT_TRUE(result.skips.empty()) << result.reasons();
}

}  // namespace
}  // namespace onyx::passes::fusion_testing
