// conv-bn/add/mul folding, matmul-add-to-gemm, gelu-fusion and layer-norm-fusion on small textual graphs:
// before -> after, the cases where they must not fire (with the reason), idempotence and numerics.
#include "passes_fusion_support.h"

namespace onyx::passes::fusion_testing {
namespace {

const char* kConvBn = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 2, 5, 5] x) => (float[N, 3, 5, 5] y)
<float[3, 2, 3, 3] w = {1, -2, 3, 0.5, 1, 2, -1, 0, 1, 2, 1, 0.5, -0.5, 1, 2, 3, 0, 1,
                         0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, -1, -2, 1, 0, 2, 1, 0, 1, 1,
                         2, 1, 0, -1, -2, 1, 3, 0.5, 0.25, 1, 1, 1, 0, 0, 1, 2, -1, 1},
 float[3] cb = {0.1, -0.2, 0.3}, float[3] scale = {1.5, 0.5, 2}, float[3] shift = {0.1, 0.2, -0.3},
 float[3] mean = {0.2, -0.1, 0.5}, float[3] var = {1, 4, 0.25}>
{
  c = Conv <pads = [1, 1, 1, 1]> (x, w, cb)
  y = BatchNormalization <epsilon = 0.001> (c, scale, shift, mean, var)
})";

TEST(ConvBnFusion, FoldsTheNormalizationIntoWeightsAndBias) {
  auto before = parse(kConvBn);
  auto model = parse(kConvBn);
  auto result = runPass(*model, "conv-bn-fusion");
  EXPECT_EQ(result.counter("batchnorms-folded"), 1) << result.reasons();
  EXPECT_EQ(summary(*model), "y = Conv(x, c.weight_folded, c.bias_folded) pads=[1, 1, 1, 1]\n-> y\n");
  EXPECT_EQ(model->graph().initializers().size(), 2u);  // the old weights and BN parameters are gone
  expectSameOutputs(*before, *model, {{"x", seeded({2, 2, 5, 5}, 11)}});
  EXPECT_FALSE(runPass(*model, "conv-bn-fusion").changed);
  EXPECT_EQ(checkerError(*model), "");
}

TEST(ConvBnFusion, LeavesAConvWhoseOutputIsAlsoReadElsewhere) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, 4, 4] x) => (float[N, 1, 4, 4] y, float[N, 1, 4, 4] z)
<float[1, 1, 1, 1] w = {2}, float[1] scale = {1}, float[1] shift = {0}, float[1] mean = {0}, float[1] var = {1}>
{
  c = Conv(x, w)
  y = BatchNormalization(c, scale, shift, mean, var)
  z = Relu(c)
})");
  auto result = runPass(*model, "conv-bn-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "the Conv's output 'c' has other uses");
}

TEST(ConvAddFusion, PerChannelAddBecomesTheBias) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 2, 4, 4] x) => (float[N, 3, 4, 4] y)
<float[3, 2, 1, 1] w = {1, 2, 3, 4, 5, 6}>
{
  c = Conv(x, w)
  k = Constant <value = float[3, 1, 1] {0.5, -1, 2}> ()
  y = Add(k, c)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "conv-add-fusion");
  EXPECT_EQ(result.counter("adds-folded-into-conv-bias"), 1) << result.reasons();
  EXPECT_EQ(summary(*model), "y = Conv(x, w, c.bias_folded)\nk = Constant()\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({2, 2, 4, 4}, 12)}});
  EXPECT_FALSE(runPass(*model, "conv-add-fusion").changed);
}

TEST(ConvAddFusion, AnAddVaryingOverSpaceIsNotABias) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, 2, 2] x) => (float[N, 1, 2, 2] y)
<float[1, 1, 1, 1] w = {2}, float[1, 1, 2, 2] k = {1, 2, 3, 4}>
{
  c = Conv(x, w)
  y = Add(c, k)
})");
  auto result = runPass(*model, "conv-add-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "the other operand is not a float32 constant per output channel");
}

TEST(ConvMulFusion, PerChannelScaleGoesIntoWeightsAndBias) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 2, 4, 4] x) => (float[N, 3, 4, 4] y)
<float[3, 2, 1, 1] w = {1, 2, 3, 4, 5, 6}, float[3] b = {1, 1, -1}, float[1, 3, 1, 1] k = {0.5, -1, 2}>
{
  c = Conv(x, w, b)
  y = Mul(c, k)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "conv-mul-fusion");
  EXPECT_EQ(result.counter("muls-folded-into-conv"), 1) << result.reasons();
  EXPECT_EQ(summary(*model), "y = Conv(x, c.weight_folded, c.bias_folded)\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({2, 2, 4, 4}, 13)}});
  EXPECT_EQ(checkerError(*model), "");
}

TEST(MatMulAddToGemm, TwoDimensionalProductWithBias) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 3] y)
<float[4, 3] w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[3] b = {0.5, -1, 2}>
{
  m = MatMul(x, w)
  y = Add(m, b)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "matmul-add-to-gemm");
  EXPECT_EQ(result.counter("matmul-adds-to-gemm"), 1) << result.reasons();
  EXPECT_EQ(summary(*model), "y = Gemm(x, w, b)\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({5, 4}, 14)}});
  EXPECT_FALSE(runPass(*model, "matmul-add-to-gemm").changed);
  EXPECT_EQ(checkerError(*model), "");
}

TEST(MatMulAddToGemm, RankThreeStaysWithAReason) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[B, S, 4] x) => (float[B, S, 3] y)
<float[4, 3] w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[3] b = {0.5, -1, 2}>
{
  m = MatMul(x, w)
  y = Add(m, b)
})");
  auto result = runPass(*model, "matmul-add-to-gemm");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "the MatMul multiplies rank-3 by rank-2 inputs; Gemm is 2-D only");
}

std::string erfGelu(int opset) {
  return R"(
<ir_version: 8, opset_import: ["" : )" +
         std::to_string(opset) + R"(]>
g (float[N, 8] x) => (float[N, 8] y) {
  sqrt2 = Constant <value = float {1.4142135}> ()
  one = Constant <value = float {1}> ()
  half = Constant <value = float {0.5}> ()
  d = Div(x, sqrt2)
  e = Erf(d)
  p = Add(e, one)
  m = Mul(x, p)
  y = Mul(m, half)
})";
}

TEST(GeluFusion, ErfFormulaBeforeOpset20StaysWithTheReason) {
  auto model = parse(erfGelu(17));
  auto result = runPass(*model, "gelu-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "Gelu needs opset 20; the model imports 17");
}

TEST(GeluFusion, ErfFormulaBecomesGelu) {
  auto before = parse(erfGelu(20));
  auto model = parse(erfGelu(20));
  auto result = runPass(*model, "gelu-fusion");
  EXPECT_EQ(result.counter("erf-gelus-fused"), 1) << result.reasons();
  EXPECT_EQ(summary(*model), "sqrt2 = Constant()\none = Constant()\nhalf = Constant()\ny = Gelu(x)\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({3, 8}, 15, -4, 4)}});
  EXPECT_FALSE(runPass(*model, "gelu-fusion").changed);
}

TEST(GeluFusion, TanhApproximationBecomesGeluTanh) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 20]>
g (float[N, 8] x) => (float[N, 8] y) {
  three = Constant <value = float {3}> ()
  c1 = Constant <value = float {0.044715}> ()
  c2 = Constant <value = float {0.7978845608}> ()
  one = Constant <value = float {1}> ()
  half = Constant <value = float {0.5}> ()
  p = Pow(x, three)
  q = Mul(p, c1)
  s = Add(x, q)
  u = Mul(s, c2)
  t = Tanh(u)
  o = Add(t, one)
  h = Mul(x, half)
  y = Mul(h, o)
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "gelu-fusion");
  EXPECT_EQ(result.counter("tanh-gelus-fused"), 1) << result.reasons();
  EXPECT_NE(summary(*model).find("y = Gelu(x) approximate=\"tanh\"\n"), std::string::npos) << summary(*model);
  expectSameOutputs(*before, *model, {{"x", seeded({3, 8}, 16, -4, 4)}});
}

TEST(GeluFusion, IntermediateReadElsewhereBlocksTheFusion) {
  std::string text = erfGelu(20);
  text.replace(text.find("(float[N, 8] y)"), 15, "(float[N, 8] y, float[N, 8] d)");
  auto model = parse(text);
  auto result = runPass(*model, "gelu-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "an intermediate value of the GELU formula has other uses");
}

std::string layerNorm(int opset) {
  return R"(
<ir_version: 8, opset_import: ["" : )" +
         std::to_string(opset) + R"(]>
g (float[N, S, 4] x) => (float[N, S, 4] y)
<float[4] gamma = {1, 0.5, 2, -1}, float[4] beta = {0.1, 0.2, 0.3, 0.4}>
{
  mean = ReduceMean <axes = [-1]> (x)
  d = Sub(x, mean)
  two = Constant <value = float {2}> ()
  sq = Pow(d, two)
  var = ReduceMean <axes = [-1]> (sq)
  eps = Constant <value = float {1e-05}> ()
  ve = Add(var, eps)
  sd = Sqrt(ve)
  n = Div(d, sd)
  sc = Mul(n, gamma)
  y = Add(sc, beta)
})";
}

TEST(LayerNormFusion, FormulaBecomesLayerNormalization) {
  auto before = parse(layerNorm(17));
  auto model = parse(layerNorm(17));
  auto result = runPass(*model, "layer-norm-fusion");
  EXPECT_EQ(result.counter("layer-norms-fused"), 1) << result.reasons();
  EXPECT_EQ(summary(*model),
            "two = Constant()\neps = Constant()\ny = LayerNormalization(x, gamma, beta) axis=2 "
            "epsilon=1e-05\n-> y\n");
  expectSameOutputs(*before, *model, {{"x", seeded({2, 3, 4}, 17)}});
  EXPECT_FALSE(runPass(*model, "layer-norm-fusion").changed);
  EXPECT_EQ(checkerError(*model), "");
}

TEST(LayerNormFusion, BeforeOpset17StaysWithTheReason) {
  auto model = parse(layerNorm(16));
  auto result = runPass(*model, "layer-norm-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "LayerNormalization needs opset 17; the model imports 16");
}

TEST(LayerNormFusion, NormalizingALeadingAxisIsNotLayerNorm) {
  std::string text = layerNorm(17);
  for (size_t at = text.find("axes = [-1]"); at != std::string::npos; at = text.find("axes = [-1]"))
    text.replace(at, 11, "axes = [1]");
  auto model = parse(text);
  auto result = runPass(*model, "layer-norm-fusion");
  EXPECT_FALSE(result.changed);
  ASSERT_EQ(result.skips.size(), 1u);
  EXPECT_EQ(result.skips[0].reason, "the means are not over the same trailing axes with keepdims=1");
}

}  // namespace
}  // namespace onyx::passes::fusion_testing
