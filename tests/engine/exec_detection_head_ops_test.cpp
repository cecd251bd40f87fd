// The per-class ops of a detection head's post-processing (torchvision's ssdlite and retinanet exports:
// NonZero over the scores above a threshold, GatherND of those scores, TopK of them) on their edge cases:
// NaN scores in TopK (a total order: NaN ranks above every number), NonZero's coordinates over several axes,
// and GatherND with batch dims. The backend suite covers their plain cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

template <typename T>
std::vector<T> valuesOf(const RunValue& v) {
  const auto& t = std::get<TensorValue>(v);
  return std::vector<T>(t.template data<T>(), t.template data<T>() + t.count());
}

TEST(DetectionHeadOps, TopKRanksNanAboveEveryNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto x = TensorValue::fromVector<float>(DataType::Float, {7}, {0.5f, nan, 2.0f, nan, -1.0f, 2.0f, 0.0f});
  auto k = TensorValue::fromVector<int64_t>(DataType::Int64, {1}, {4});
  auto largest = runNode(NodeCase("TopK", {}, 11, 2), {x, k}, "");
  ASSERT_TRUE(largest.ok()) << largest.error().toString();
  EXPECT_EQ(valuesOf<int64_t>((*largest)[1]), (std::vector<int64_t>{1, 3, 2, 5}));
  auto smallest = runNode(NodeCase("TopK", {Attribute::ofInt("largest", 0)}, 11, 2), {x, k}, "");
  ASSERT_TRUE(smallest.ok()) << smallest.error().toString();
  EXPECT_EQ(valuesOf<int64_t>((*smallest)[1]), (std::vector<int64_t>{4, 6, 0, 2}));
  // Mostly NaN, long enough for the selection's partitioning: the order stays total (no crash, lower
  // indices first among the NaNs).
  std::vector<float> many(5000, nan);
  for (size_t i = 0; i < many.size(); i += 3) many[i] = float(i % 17);
  auto big = runNode(NodeCase("TopK", {}, 11, 2),
                     {TensorValue::fromVector<float>(DataType::Float, {5000}, many),
                      TensorValue::fromVector<int64_t>(DataType::Int64, {1}, {3400})},
                     "");
  ASSERT_TRUE(big.ok()) << big.error().toString();
  const std::vector<int64_t> order = valuesOf<int64_t>((*big)[1]);
  EXPECT_EQ(order[0], 1);
  EXPECT_EQ(order[1], 2);
  EXPECT_EQ(order[2], 4);
  EXPECT_TRUE(std::isnan(valuesOf<float>((*big)[0])[3332]));  // 3,333 NaNs first
  EXPECT_EQ(valuesOf<float>((*big)[0])[3333], 16.0f);
}

// float selects on ordered integer keys, double on (value, index) pairs: the same order on values with
// ties, signed zeros, infinities and NaN, along an inner axis, largest and smallest.
TEST(DetectionHeadOps, TopKOrdersFloatsAsItOrdersDoubles) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float pool[] = {0.0f, -0.0f, 1.5f, -1.5f, 1.5f, nan, inf, -inf, -0.0f, 0.0f, 7.0f};  // no denormals: runs flush them
  std::vector<float> values(2 * 700 * 3);
  for (size_t i = 0; i < values.size(); ++i) values[i] = i % 5 == 0 ? pool[(i * 7) % 11] : float((i * 37) % 101) - 50.0f;
  std::vector<double> doubles(values.begin(), values.end());
  for (int64_t largest : {1, 0}) {
    SCOPED_TRACE(largest);
    NodeCase c("TopK", {Attribute::ofInt("axis", 1), Attribute::ofInt("largest", largest)}, 11, 2);
    auto k = TensorValue::fromVector<int64_t>(DataType::Int64, {1}, {700});  // every position: the whole order
    auto f = runNode(c, {TensorValue::fromVector<float>(DataType::Float, {2, 700, 3}, values), k}, "");
    auto d = runNode(c, {TensorValue::fromVector<double>(DataType::Double, {2, 700, 3}, doubles), k}, "");
    ASSERT_TRUE(f.ok() && d.ok());
    EXPECT_EQ(valuesOf<int64_t>((*f)[1]), valuesOf<int64_t>((*d)[1]));
  }
}

TEST(DetectionHeadOps, NonZeroGivesEachAxisItsCoordinates) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {2, 3, 2}, {0, 1, 0, 0, 2, 0, 3, 0, 0, 0, 0, 4});
  auto out = runNode(NodeCase("NonZero", {}, 13), {x}, "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const auto& y = std::get<TensorValue>((*out)[0]);
  EXPECT_EQ(y.dims(), (Dims{3, 4}));
  EXPECT_EQ(valuesOf<int64_t>((*out)[0]), (std::vector<int64_t>{0, 0, 1, 1,  //
                                                                 0, 2, 0, 2,  //
                                                                 1, 0, 0, 1}));
  auto none = runNode(NodeCase("NonZero", {}, 13), {TensorValue::fromVector<float>(DataType::Float, {2, 2}, {0, 0, 0, 0})}, "");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(std::get<TensorValue>((*none)[0]).dims(), (Dims{2, 0}));
}

TEST(DetectionHeadOps, GatherNdWithBatchDimsReadsEachBatchsOwnData) {
  auto data = TensorValue::fromVector<float>(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto indices = TensorValue::fromVector<int64_t>(DataType::Int64, {2, 2, 1}, {2, 0, -1, 1});
  auto out = runNode(NodeCase("GatherND", {Attribute::ofInt("batch_dims", 1)}, 13), {data, indices}, "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  EXPECT_EQ(valuesOf<float>((*out)[0]), (std::vector<float>{3, 1, 6, 5}));
}

}  // namespace
}  // namespace onyx::exec::testing
