// Inference keeps what it finds inside a model-local function's body, as far as every call agrees.
#include "shapes_test_support.h"

namespace onyx::testing {
namespace {

std::string modelCalling(const std::string& inputs, const std::string& outputs, const std::string& calls) {
  return "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
         "g (" + inputs + ") => (" + outputs + ") {\n" + calls + "}\n"
         "<domain: \"local\", opset_import: [\"\" : 17]>\n"
         "Twice (fin) => (r) {\n  m = Add(fin, fin)\n  r = Relu(m)\n}";
}

TEST(ShapesFunctionBody, OneCallGivesTheBodyItsShapes) {
  auto model = parseOrFail(modelCalling("float[N, 3] x", "float[N, 3] y", "  y = local.Twice (x)\n"));
  ASSERT_TRUE(model);
  ShapeInference result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "m"), "[N, 3]");
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 3]");
}

TEST(ShapesFunctionBody, CallsThatAgreeKeepTheSharedDims) {
  auto model = parseOrFail(modelCalling("float[2, 3] x, float[2, 5] z", "float[2, 3] y, float[2, 5] y2",
                                        "  y = local.Twice (x)\n  y2 = local.Twice (z)\n"));
  ASSERT_TRUE(model);
  ShapeInference result = inferShapes(*model);
  const InferredValue* m = inferredNamed(result, "m");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->type.shape());
  ASSERT_EQ(m->type.shape()->size(), 2u);
  EXPECT_EQ((*m->type.shape())[0].value(), 2);
  const Dim& disagreeing = (*m->type.shape())[1];
  ASSERT_TRUE(disagreeing.isUnknown());
  ASSERT_TRUE(disagreeing.origin());
  EXPECT_EQ(disagreeing.origin()->reason, "calls of function 'Twice' disagree on dim 1");
  // The callers' own outputs keep their exact shapes.
  EXPECT_EQ(shapeNamed(result, "y"), "[2, 3]");
  EXPECT_EQ(shapeNamed(result, "y2"), "[2, 5]");
}

TEST(ShapesFunctionBody, CallsOfDifferentRankKeepNoRank) {
  auto model = parseOrFail(modelCalling("float[2, 3] x, float[1, 2, 3] z", "float[2, 3] y, float[1, 2, 3] y2",
                                        "  y = local.Twice (x)\n  y2 = local.Twice (z)\n"));
  ASSERT_TRUE(model);
  ShapeInference result = inferShapes(*model);
  const InferredValue* m = inferredNamed(result, "m");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->type.shape());
  ASSERT_TRUE(m->rankOrigin);
  EXPECT_EQ(m->rankOrigin->reason, "calls of function 'Twice' disagree on the rank");
}

TEST(ShapesFunctionBody, AFunctionNobodyCallsHasNoShapes) {
  auto model = parseOrFail(modelCalling("float[2, 3] x", "float[2, 3] y", "  y = Relu (x)\n"));
  ASSERT_TRUE(model);
  ShapeInference result = inferShapes(*model);
  EXPECT_EQ(shapeNamed(result, "m"), "missing");
}

}  // namespace
}  // namespace onyx::testing
