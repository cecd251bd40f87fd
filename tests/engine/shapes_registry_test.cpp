// The op registry: schema facts are found by domain and type, and versions resolve per opset.
#include <gtest/gtest.h>

#include "catalog/op_registry.h"

namespace onyx {
namespace {

TEST(OpRegistry, FindsOpsByDomainAndType) {
  const OpSchema* conv = opRegistry().find("", "Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->category, OpCategory::Layer);
  EXPECT_NE(conv->shape, nullptr);
  EXPECT_EQ(opRegistry().find("ai.onnx", "Conv"), conv);
  EXPECT_EQ(opRegistry().find("", "NoSuchOp"), nullptr);
  EXPECT_NE(opRegistry().find("ai.onnx.ml", "LabelEncoder"), nullptr);
}

TEST(OpRegistry, ResolvesTheVersionInEffectForAnOpset) {
  const OpSchema* reduceSum = opRegistry().find("", "ReduceSum");
  ASSERT_NE(reduceSum, nullptr);
  EXPECT_EQ(reduceSum->versionFor(12), 11);
  EXPECT_EQ(reduceSum->versionFor(13), 13);
  EXPECT_EQ(reduceSum->versionFor(0), 0);
}

TEST(OpRegistry, EveryOpHasAShapeFunctionAndANamedCategory) {
  EXPECT_GT(opRegistry().all().size(), 200u);
  for (const OpSchema& schema : opRegistry().all()) {
    EXPECT_NE(schema.shape, nullptr) << schema.opType;
    EXPECT_FALSE(schema.sinceVersions.empty()) << schema.opType;
    EXPECT_NE(opCategoryName(schema.category), "") << schema.opType;
    EXPECT_LE(schema.minInputs, schema.maxInputs) << schema.opType;
  }
}

}  // namespace
}  // namespace onyx
