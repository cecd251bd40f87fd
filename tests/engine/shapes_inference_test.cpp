// Shape inference on small graphs: symbolic arithmetic through layers, value propagation of shape
// tensors, broadcasting unification, provenance of unknown dims, bindings and errors.
#include <gtest/gtest.h>

#include "shapes/shape_inference.h"
#include "shapes_test_support.h"

namespace onyx {
namespace {

using testing::errorsOf;
using testing::evaluateDim;
using testing::inferredNamed;
using testing::parseOrFail;
using testing::shapeNamed;

TEST(ShapeInference, ConvOverSymbolicSizesGivesAnExpressionNotANewSymbol) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 3, H, W] x, float[8, 3, 3, 3] w) => (float y) {
      y = Conv <strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  const InferredValue* y = inferredNamed(result, "y");
  ASSERT_TRUE(y && y->type.shape());
  const Shape& shape = *y->type.shape();
  ASSERT_EQ(shape.size(), 4u);
  EXPECT_EQ(shape[0].toString(), "N");
  EXPECT_EQ(shape[1].value(), 8);
  for (int64_t h : {224, 225, 7, 1}) EXPECT_EQ(evaluateDim(shape[2], {{"H", h}}), (h + 2 - 3) / 2 + 1) << h;
  EXPECT_EQ(shape[3].expr().symbols(), std::vector<std::string>{"W"});
}

TEST(ShapeInference, ConcatOfSymbolicLengthsIsTheirSum) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[M, 4] a, float[N, 4] b) => (float y) {
      y = Concat <axis = 0> (a, b)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(shapeNamed(result, "y"), "[M + N, 4]");
}

TEST(ShapeInference, ShapeArithmeticFeedsReshape) {
  // The exporter pattern: Shape -> Gather -> Unsqueeze -> Concat -> Reshape, with -1 over a product.
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[B, S, 768] x) => (float y, float z) {
      s = Shape(x)
      i0 = Constant <value = int64[1] {0}> ()
      b = Gather(s, i0)
      heads = Constant <value = int64[2] {12, 64}> ()
      minus = Constant <value = int64[1] {-1}> ()
      target = Concat <axis = 0> (b, minus, heads)
      y = Reshape(x, target)
      flat = Constant <value = int64[2] {-1, 768}> ()
      z = Reshape(x, flat)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "y"), "[B, S, 12, 64]");
  EXPECT_EQ(shapeNamed(result, "z"), "[B*S, 768]");
}

TEST(ShapeInference, RangeAndConstantOfShapeFollowTheSequenceLength) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (int64[B, S] ids) => (float mask, int64 positions, int64 steps) {
      s = Shape(ids)
      one = Constant <value = int64[1] {1}> ()
      len = Gather <axis = 0> (s, one)
      start = Constant <value = int64 {0}> ()
      delta = Constant <value = int64 {1}> ()
      lenScalar = Squeeze(len)
      positions = Range(start, lenScalar, delta)
      two = Constant <value = int64 {2}> ()
      steps = Range(start, lenScalar, two)
      square = Concat <axis = 0> (len, len)
      mask = ConstantOfShape <value = float[1] {0.0}> (square)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "positions"), "[S]");
  EXPECT_EQ(shapeNamed(result, "mask"), "[S, S]");
  const InferredValue* steps = inferredNamed(result, "steps");
  ASSERT_TRUE(steps && steps->type.shape());
  for (int64_t s : {0, 1, 7, 8}) EXPECT_EQ(evaluateDim((*steps->type.shape())[0], {{"S", s}}), (s + 1) / 2);
}

TEST(ShapeInference, SliceOfAShapeVectorKeepsItsSymbols) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, C, H, W] x) => (float y) {
      s = Shape <start = 2> (x)
      starts = Constant <value = int64[1] {0}> ()
      ends = Constant <value = int64[1] {1}> ()
      h = Slice(s, starts, ends)
      c = Constant <value = int64[1] {-1}> ()
      target = Concat <axis = 0> (c, h)
      y = Reshape(x, target)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "y"), "[C*N*W, H]");
}

TEST(ShapeInference, BroadcastingTwoSymbolsRecordsAndUnifiesThem) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] a, float[M, 1] b, float[M, 4] c) => (float y, float z) {
      y = Add(a, b)
      z = Mul(c, a)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  ASSERT_EQ(result.constraints.size(), 1u);
  EXPECT_EQ(result.constraints[0].left.toString() + " = " + result.constraints[0].right.toString(), "N = M");
  EXPECT_EQ(shapeNamed(result, "y"), "[M, 4]");
  EXPECT_EQ(shapeNamed(result, "z"), "[M, 4]");
  EXPECT_EQ(shapeNamed(result, "a"), "[M, 4]");  // unification applies everywhere
}

TEST(ShapeInference, BroadcastingAgainstOneKeepsTheOtherDim) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 1, 5] a, float[3, 1] b) => (float y) {
      y = Add(a, b)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 3, 5]");
  EXPECT_TRUE(result.constraints.empty());
}

TEST(ShapeInference, ProvableBroadcastMismatchNamesBothProducers) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 3] a, float[2, 4] b) => (float y, float z) {
      ra = Relu(a)
      sb = Sigmoid(b)
      y = Add(ra, sb)
      z = Tanh(sb)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  std::string errors = errorsOf(result);
  EXPECT_NE(errors.find("cannot broadcast dim 3"), std::string::npos) << errors;
  EXPECT_NE(errors.find("Relu"), std::string::npos) << errors;
  EXPECT_NE(errors.find("Sigmoid"), std::string::npos) << errors;
  EXPECT_NE(errors.find("[Add"), std::string::npos) << errors;
  // Inference went on past the failing node.
  EXPECT_EQ(shapeNamed(result, "z"), "[2, 4]");
}

TEST(ShapeInference, ReshapeOfSixElementsIntoFourIsAnErrorNamingTheNode) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 3] x) => (float y) {
      target = Constant <value = int64[1] {4}> ()
      y = Reshape <allowzero = 0> (x, target)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  std::string errors = errorsOf(result);
  EXPECT_NE(errors.find("cannot reshape 6 elements"), std::string::npos) << errors;
  EXPECT_NE(errors.find("Reshape"), std::string::npos) << errors;
}

TEST(ShapeInference, NegativeDimsAreErrorsNotCrashes) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 3] x) => (float y, float z) {
      bad = Constant <value = int64[2] {2, -3}> ()
      y = ConstantOfShape(bad)
      target = Constant <value = int64[2] {-2, 3}> ()
      z = Reshape(x, target)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  std::string errors = errorsOf(result);
  EXPECT_NE(errors.find("ConstantOfShape: negative dim -3"), std::string::npos) << errors;
  EXPECT_NE(errors.find("negative dim -2"), std::string::npos) << errors;
}

TEST(ShapeInference, DataDependentDimsPointToTheirOrigin) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x) => (float y) {
      idx = NonZero(x)
      t = Transpose(idx)
      r = Cast <to = 1> (t)
      y = Relu(r)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  const InferredValue* y = inferredNamed(result, "y");
  ASSERT_TRUE(y && y->type.shape());
  const Shape& shape = *y->type.shape();
  ASSERT_EQ(shape.size(), 2u);
  ASSERT_TRUE(shape[0].isUnknown());
  ASSERT_TRUE(shape[0].origin());
  EXPECT_EQ(shape[0].origin()->opType, "NonZero");
  EXPECT_EQ(shape[0].origin()->reason, "NonZero: output count depends on the data");
  EXPECT_EQ(shape[1].value(), 2);
}

TEST(ShapeInference, RuntimeReshapeTargetNamesTheTensor) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x, int64[3] target) => (float y) {
      y = Reshape(x, target)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  const InferredValue* y = inferredNamed(result, "y");
  ASSERT_TRUE(y && y->type.shape());
  ASSERT_EQ(y->type.shape()->size(), 3u);
  EXPECT_EQ((*y->type.shape())[0].origin()->reason, "Reshape: the target shape comes from runtime tensor 'target'");
}

TEST(ShapeInference, UnknownOpsGetProvenanceAndInferenceContinues) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17, "custom" : 1]>
    g (float[N, 4] x) => (float y) {
      c = custom.Mystery(x)
      y = Relu(c)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  const InferredValue* y = inferredNamed(result, "y");
  ASSERT_TRUE(y && y->rankOrigin);
  EXPECT_EQ(y->rankOrigin->reason, "no shape function for custom::Mystery");
  EXPECT_EQ(y->rankOrigin->opType, "Mystery");
}

TEST(ShapeInference, BindingsMakeShapesStatic) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch, sequence, 8] x) => (float y) {
      y = Flatten <axis = 2> (x)
    })");
  ASSERT_TRUE(model);
  ShapeInferenceOptions options;
  options.bindings = {{"batch", 2}, {"sequence", 128}};
  auto result = inferShapes(*model, options);
  EXPECT_EQ(shapeNamed(result, "y"), "[256, 8]");
}

TEST(ShapeInference, InputDimsWithoutNamesGetGeneratedSymbols) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[?, 3] x) => (float y) {
      y = Relu(x)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(shapeNamed(result, "y"), "[x_d0, 3]");
}

TEST(ShapeInference, NodesStoredOutOfOrderAreInferredInDependencyOrder) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x) => (float z) {
      z = Concat <axis = 0> (y, y)
      y = Relu(x)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "z"), "[2*N, 4]");
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 4]");
}

// fuzz_run: a GatherND batch_dims of 1 with rank-1 indices moved an iterator past the indices' end, and
// `onyx shapes` stopped on std::length_error. batch_dims and the indices' last dim are checked first.
TEST(ShapeInference, GatherNdChecksBatchDimsAndIndexDepth) {
  std::vector<std::unique_ptr<Model>> models;  // the results point into them
  auto infer = [&](const std::string& signature, int64_t batchDims) {
    models.push_back(parseOrFail(R"(<ir_version: 8, opset_import: ["" : 13]>
g ()" + signature + R"() => (float y) {
  y = GatherND <batch_dims = )" + std::to_string(batchDims) + R"(> (data, indices)
})"));
    return models.back() ? inferShapes(*models.back()) : ShapeInference{};
  };
  auto past = infer("float[2, 3] data, int64[2] indices", 1);
  EXPECT_NE(errorsOf(past).find("batch_dims 1 must be at least 0 and less than the ranks"), std::string::npos)
      << errorsOf(past);
  auto deep = infer("float[2, 3] data, int64[4, 3] indices", 0);
  EXPECT_NE(errorsOf(deep).find("indices address 3 dims; the data has 2"), std::string::npos) << errorsOf(deep);
  auto fine = infer("float[2, 3, 5] data, int64[2, 4, 1] indices", 1);
  EXPECT_EQ(errorsOf(fine), "");
  EXPECT_EQ(shapeNamed(fine, "y"), "[2, 4, 5]");
}

}  // namespace
}  // namespace onyx
