// The com.microsoft QLinear* shape functions over symbolic dims: each op's output keeps the symbols of its
// data inputs (broadcast, pooled windows as expressions, channels first or last, concatenated lengths summed).
#include "shapes_test_support.h"

namespace onyx {
namespace {

using testing::evaluateDim;
using testing::errorsOf;
using testing::inferredNamed;
using testing::parseOrFail;
using testing::shapeNamed;

TEST(QLinearShapes, EveryOpKeepsTheSymbolsOfItsInputs) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (uint8[N, 3, H, W] x, uint8[N, H, W, 3] xl, int8[N, S, C] a, int8[S, 1] b, uint8[M, 4] p, uint8[K, 4] q,
       bool[M, 1] cnd, uint8[4] r, float s, uint8 z, int8 zs) => (int8 add, int8 mul, uint8 sig, uint8 leaky, uint8 pool, uint8 pool_last,
       uint8 gap, uint8 gap_last, uint8 cat, uint8 soft, uint8 wh, uint8 mean, uint8 mean_kept) {
      add = com.microsoft.QLinearAdd (a, s, zs, b, s, zs, s, zs)
      mul = com.microsoft.QLinearMul (a, s, , b, s, , s, )
      sig = com.microsoft.QLinearSigmoid (x, s, z, s, z)
      leaky = com.microsoft.QLinearLeakyRelu <alpha = 0.1> (x, s, z, s, z)
      pool = com.microsoft.QLinearAveragePool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x, s, z, s, z)
      pool_last = com.microsoft.QLinearAveragePool <kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1, channels_last = 1> (xl, s, z, s, z)
      gap = com.microsoft.QLinearGlobalAveragePool (x, s, z, s, z)
      gap_last = com.microsoft.QLinearGlobalAveragePool <channels_last = 1> (xl, s, z, s, z)
      cat = com.microsoft.QLinearConcat <axis = 0> (s, z, p, s, z, q, s, z)
      soft = com.microsoft.QLinearSoftmax <opset = 11, axis = 1> (x, s, z, s, z)
      wh = com.microsoft.QLinearWhere (cnd, r, s, z, p, s, z, s, z)
      mean = com.microsoft.QLinearReduceMean <axes = [-1, 2], keepdims = 0> (x, s, z, s, z)
      mean_kept = com.microsoft.QLinearReduceMean <axes = [1], keepdims = 1> (x, s, z, s, z)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "soft"), "[N, 3, H, W]");
  EXPECT_EQ(shapeNamed(result, "wh"), "[M, 4]");
  EXPECT_EQ(shapeNamed(result, "mean"), "[N, 3]");
  EXPECT_EQ(shapeNamed(result, "mean_kept"), "[N, 1, H, W]");
  EXPECT_EQ(shapeNamed(result, "add"), "[N, S, C]");
  EXPECT_EQ(shapeNamed(result, "mul"), "[N, S, C]");
  EXPECT_EQ(shapeNamed(result, "sig"), "[N, 3, H, W]");
  EXPECT_EQ(shapeNamed(result, "leaky"), "[N, 3, H, W]");
  EXPECT_EQ(shapeNamed(result, "gap"), "[N, 3, 1, 1]");
  EXPECT_EQ(shapeNamed(result, "gap_last"), "[N, 1, 1, 3]");
  EXPECT_EQ(shapeNamed(result, "cat"), "[K + M, 4]");
  for (const char* name : {"add", "mul", "sig", "gap", "cat", "wh"})
    EXPECT_EQ(inferredNamed(result, name)->type.elemType(), std::string(name) == "add" || std::string(name) == "mul" ? DataType::Int8 : DataType::Uint8) << name;

  const InferredValue* pool = inferredNamed(result, "pool");
  ASSERT_TRUE(pool && pool->type.shape());
  const Shape& pooled = *pool->type.shape();
  ASSERT_EQ(pooled.size(), 4u);
  EXPECT_EQ(pooled[0].toString(), "N");
  EXPECT_EQ(pooled[1].value(), 3);
  for (int64_t h : {7, 8, 1, 224}) EXPECT_EQ(evaluateDim(pooled[2], {{"H", h}}), (h + 2 - 3) / 2 + 1) << h;
  EXPECT_EQ(pooled[3].expr().symbols(), std::vector<std::string>{"W"});

  const InferredValue* last = inferredNamed(result, "pool_last");
  ASSERT_TRUE(last && last->type.shape());
  const Shape& pooledLast = *last->type.shape();
  ASSERT_EQ(pooledLast.size(), 4u);
  EXPECT_EQ(pooledLast[0].toString(), "N");
  for (int64_t h : {7, 8, 2}) EXPECT_EQ(evaluateDim(pooledLast[1], {{"H", h}}), (h - 2 + 1) / 2 + 1) << h;  // ceil_mode
  EXPECT_EQ(pooledLast[2].expr().symbols(), std::vector<std::string>{"W"});
  EXPECT_EQ(pooledLast[3].value(), 3);
}

TEST(QLinearShapes, ConcatOfDifferentRanksNamesTheNode) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (uint8[M, 4] p, uint8[K] q, float s, uint8 z) => (uint8 cat) {
      cat = com.microsoft.QLinearConcat <axis = 0> (s, z, p, s, z, q, s, z)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_NE(errorsOf(result).find("differ in rank"), std::string::npos) << errorsOf(result);
}

}  // namespace
}  // namespace onyx
