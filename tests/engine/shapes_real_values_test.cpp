// Sizes computed in floating point: a detection transform's resize and pad sizes (Cast to float, Div, Min,
// Floor, Ceil, Cast back) resolve once the input dims are bound, computed with float32 rounding as the
// kernels compute them, and stay readable expressions while they are not.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "shapes/real_value.h"
#include "shapes/shape_report.h"
#include "shapes_test_support.h"

namespace onyx {
namespace {

using testing::parseOrFail;
using testing::shapeNamed;

std::unique_ptr<Model> detectionTransform() {
  std::ifstream file(std::string(ONYX_SOURCE_DIR) + "/tests/cli/models/detection_transform.onnxtxt");
  std::stringstream text;
  text << file.rdbuf();
  return parseOrFail(text.str());
}

size_t unresolvedValues(const Model& model, const ShapeInference& inference) {
  return buildShapeReport(model, inference).summary.unresolved;
}

TEST(ShapesRealValues, DetectionTransformResolvesEveryValueWithBoundDims) {
  auto model = detectionTransform();
  ASSERT_TRUE(model);
  ShapeInferenceOptions options;
  options.bindings = {{"H", 480}, {"W", 640}};
  ShapeInference result = inferShapes(*model, options);
  EXPECT_EQ(testing::errorsOf(result), "");
  // scale = min(800/480, 1333/640) = 1.6666666 in float32; 640 * scale = 1066.67 -> 1066; padded to 32s.
  EXPECT_EQ(shapeNamed(result, "resized"), "[1, 3, 800, 1066]");
  EXPECT_EQ(shapeNamed(result, "padded"), "[1, 3, 800, 1088]");
  EXPECT_EQ(unresolvedValues(*model, result), 0u);
}

TEST(ShapesRealValues, BoundSizesRoundLikeFloat32NotLikeExactFractions) {
  // 800/171 in float32 times 171 is 799.99994, so the kernels give 799 where the exact fraction gives 800.
  auto model = detectionTransform();
  ASSERT_TRUE(model);
  ShapeInferenceOptions options;
  options.bindings = {{"H", 171}, {"W", 222}};
  ShapeInference result = inferShapes(*model, options);
  EXPECT_EQ(shapeNamed(result, "resized"), "[1, 3, 799, 1038]");
  EXPECT_EQ(shapeNamed(result, "padded"), "[1, 3, 800, 1056]");
}

TEST(ShapesRealValues, UnboundSizesKeepAReadableExpression) {
  auto model = detectionTransform();
  ASSERT_TRUE(model);
  ShapeInference result = inferShapes(*model);
  EXPECT_EQ(testing::errorsOf(result), "");
  const InferredValue* scale = testing::inferredNamed(result, "scale");
  ASSERT_TRUE(scale && scale->real);
  EXPECT_EQ((*scale->real)[0].toString(), "min(1333*min(H, W), 800*max(H, W))/(min(H, W)*max(H, W))");
  EXPECT_EQ(shapeNamed(result, "resized"), "[1, 3, floor(H*min(1333*min(H, W), 800*max(H, W))/(min(H, W)*max(H, W))), "
                                           "floor(W*min(1333*min(H, W), 800*max(H, W))/(min(H, W)*max(H, W)))]");
  EXPECT_EQ(unresolvedValues(*model, result), 0u);
  // The expression agrees with the exact arithmetic where float32 does not round differently.
  const Shape& padded = *testing::inferredNamed(result, "padded")->type.shape();
  EXPECT_EQ(testing::evaluateDim(padded[2], {{"H", 480}, {"W", 640}}), 800);
  EXPECT_EQ(testing::evaluateDim(padded[3], {{"H", 480}, {"W", 640}}), 1088);
}

TEST(ShapesRealValues, ArithmeticFollowsTheElementType) {
  RealElement third = realDiv(RealElement::fromNumber(1), RealElement::fromNumber(3), DataType::Float);
  EXPECT_EQ(third.number, static_cast<double>(1.0f / 3.0f));
  RealElement exactThird = realDiv(RealElement::fromNumber(1), RealElement::fromNumber(3), DataType::Double);
  EXPECT_EQ(exactThird.number, 1.0 / 3.0);
  EXPECT_EQ(realUnary("Sqrt", RealElement::fromNumber(2), DataType::Float).number, static_cast<double>(std::sqrt(2.0f)));
  // Symbolic: N/2 is a fraction, its ceil an integer dim; N*2/2 is N again.
  RealElement n = RealElement::fromDim(Dim::symbol("N"));
  RealElement half = realDiv(n, RealElement::fromNumber(2), DataType::Float);
  EXPECT_EQ(half.toString(), "N/2");
  EXPECT_FALSE(half.wholeDim());
  EXPECT_EQ(realUnary("Ceil", half, DataType::Float).wholeDim()->toString(), "ceil(N/2)");
  EXPECT_EQ(realMul(half, RealElement::fromNumber(2), DataType::Float).wholeDim()->toString(), "N");
  EXPECT_EQ(realToInteger(realMul(n, RealElement::fromNumber(0.75), DataType::Float))->toString(), "floor(3*N/4)");
  // No rational form: Sqrt of a symbol, and a division by a value of unknown sign.
  EXPECT_FALSE(realUnary("Sqrt", n, DataType::Float).isKnown());
  EXPECT_FALSE(realDiv(RealElement::fromNumber(1), realSub(n, RealElement::fromNumber(5), DataType::Float), DataType::Float).isKnown());
}

TEST(ShapesRealValues, FractionalValuesMoveThroughConcatGatherAndUnsqueeze) {
  auto model = parseOrFail(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 3, H, W] image) => (float[1, 3, ?, ?] out) <float[2] half = {0.5, 0.25}, int64 one = {1}, int64[1] axes = {0}, int64[2] nc = {1, 3}> {
  s = Shape(image)
  hw = Slice(s, axes_two, axes_four)
  axes_two = Constant<value = int64[1] {2}>()
  axes_four = Constant<value = int64[1] {4}>()
  f = Cast<to = 1>(hw)
  scaled = Mul(f, half)
  w_scaled = Gather(scaled, one)
  w_vector = Unsqueeze(w_scaled, axes)
  h_scaled = Gather(scaled, axes)
  both = Concat<axis = 0>(h_scaled, w_vector)
  rounded = Ceil(both)
  hw_int = Cast<to = 7>(rounded)
  sizes = Concat<axis = 0>(nc, hw_int)
  out = Resize<mode = "nearest">(image, , , sizes)
}
)");
  ASSERT_TRUE(model);
  ShapeInference result = inferShapes(*model);
  EXPECT_EQ(testing::errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "out"), "[1, 3, ceil(H/2), ceil(W/4)]");
  ShapeInferenceOptions options;
  options.bindings = {{"H", 7}, {"W", 9}};
  EXPECT_EQ(shapeNamed(inferShapes(*model, options), "out"), "[1, 3, 4, 3]");
}

TEST(ShapesRealValues, ResizeScalesComputedFromTheDims) {
  // interpolate(scale_factor=64 / W): the scales are a runtime float tensor computed from the input dims.
  auto model = parseOrFail(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 3, H, W] image) => (float[1, 3, ?, ?] out) <float target = {64}, float[2] ones = {1, 1}, int64 three = {3}, int64[1] axes = {0}> {
  s = Shape(image)
  w = Gather(s, three)
  wf = Cast<to = 1>(w)
  scale = Div(target, wf)
  scale1 = Unsqueeze(scale, axes)
  scales = Concat<axis = 0>(ones, scale1, scale1)
  out = Resize<mode = "linear">(image, , scales)
}
)");
  ASSERT_TRUE(model);
  ShapeInference unbound = inferShapes(*model);
  EXPECT_EQ(testing::errorsOf(unbound), "");
  EXPECT_EQ(shapeNamed(unbound, "out"), "[1, 3, floor(64*H/W), 64]");
  // 64/100 in float32 is 0.63999999; 100 times that floors to 63, as the kernel computes it.
  ShapeInferenceOptions options;
  options.bindings = {{"H", 48}, {"W", 100}};
  EXPECT_EQ(shapeNamed(inferShapes(*model, options), "out"), "[1, 3, 30, 63]");
}

}  // namespace
}  // namespace onyx
