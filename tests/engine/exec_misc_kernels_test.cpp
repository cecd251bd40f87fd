// Small kernels checked against hand-computed answers: CumProd, Det, ReverseSequence, CenterCropPad,
// Col2Im, MaxUnpool.
#include <gtest/gtest.h>

#include "exec/kernel_util.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

TensorValue runOne(const NodeCase& c, const std::vector<TensorValue>& inputs) {
  auto result = runNode(c, inputs, "reference");
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().toString());
  if (!result.ok()) return {};
  return std::get<TensorValue>((*result)[0]).clone();
}

TEST(ExecMiscKernels, CumProdExclusiveReverseAlongAxis1) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto axis = TensorValue::scalar<int64_t>(DataType::Int64, -1);
  NodeCase c("CumProd", {Attribute::ofInt("exclusive", 1), Attribute::ofInt("reverse", 1)}, 26);
  auto y = runOne(c, {x, axis});
  auto expected = TensorValue::fromVector<float>(DataType::Float, {2, 3}, {6, 3, 1, 30, 6, 1});
  EXPECT_TRUE(closeTensors(y, expected, 0, 0));
}

TEST(ExecMiscKernels, DetOfBatchedMatricesNeedsPivoting) {
  // [[0, 1], [1, 0]] needs a row swap (det -1); [[2, 0], [0, 3]] is diagonal (6); a singular one gives 0.
  auto x = TensorValue::fromVector<float>(DataType::Float, {3, 2, 2}, {0, 1, 1, 0, 2, 0, 0, 3, 1, 2, 2, 4});
  auto y = runOne(NodeCase("Det", {}, 22), {x});
  auto expected = TensorValue::fromVector<float>(DataType::Float, {3}, {-1, 6, 0});
  EXPECT_TRUE(closeTensors(y, expected, 1e-6, 1e-6));
}

TEST(ExecMiscKernels, ReverseSequenceBatchMajor) {
  auto x = TensorValue::fromVector<int32_t>(DataType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto lens = TensorValue::fromVector<int64_t>(DataType::Int64, {2}, {2, 3});
  NodeCase c("ReverseSequence", {Attribute::ofInt("time_axis", 1), Attribute::ofInt("batch_axis", 0)}, 10);
  auto y = runOne(c, {x, lens});
  auto expected = TensorValue::fromVector<int32_t>(DataType::Int32, {2, 3}, {2, 1, 3, 6, 5, 4});
  EXPECT_TRUE(closeTensors(y, expected, 0, 0));
}

TEST(ExecMiscKernels, ReverseSequenceRejectsTooLongLength) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {2, 2}, {1, 2, 3, 4});
  auto lens = TensorValue::fromVector<int64_t>(DataType::Int64, {2}, {1, 5});
  auto result = runNode(NodeCase("ReverseSequence", {}, 10), {x, lens}, "reference");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().toString().find("sequence_lens[1] = 5"), std::string::npos);
}

TEST(ExecMiscKernels, CenterCropPadCropsOneAxisAndPadsAnother) {
  // Rows 5 -> 3 keep rows 1..3; columns 2 -> 5 put one zero column before and two after.
  std::vector<float> values(10);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i + 1);
  auto x = TensorValue::fromVector<float>(DataType::Float, {5, 2}, values);
  auto shape = TensorValue::fromVector<int64_t>(DataType::Int64, {2}, {3, 5});
  auto y = runOne(NodeCase("CenterCropPad", {}, 18), {x, shape});
  auto expected =
      TensorValue::fromVector<float>(DataType::Float, {3, 5}, {0, 3, 4, 0, 0, 0, 5, 6, 0, 0, 0, 7, 8, 0, 0});
  EXPECT_TRUE(closeTensors(y, expected, 0, 0));
}

TEST(ExecMiscKernels, Col2ImSumsOverlappingBlocks) {
  // Image [1, 3] with [1, 2] blocks: two blocks overlap at column 1. Rows of x are kernel positions.
  auto x = TensorValue::fromVector<float>(DataType::Float, {1, 2, 2}, {1, 2, 10, 20});
  auto image = TensorValue::fromVector<int64_t>(DataType::Int64, {2}, {1, 3});
  auto block = TensorValue::fromVector<int64_t>(DataType::Int64, {2}, {1, 2});
  auto y = runOne(NodeCase("Col2Im", {}, 18), {x, image, block});
  auto expected = TensorValue::fromVector<float>(DataType::Float, {1, 1, 1, 3}, {1, 12, 20});
  EXPECT_TRUE(closeTensors(y, expected, 0, 0));
}

TEST(ExecMiscKernels, MaxUnpoolWithLargerOutputShapeKeepsCoordinates) {
  // Default output is [1, 1, 2, 2]; flat index 3 is (1, 1), which stays (1, 1) in a [1, 1, 3, 3] output.
  auto x = TensorValue::fromVector<float>(DataType::Float, {1, 1, 1, 1}, {7});
  auto indices = TensorValue::fromVector<int64_t>(DataType::Int64, {1, 1, 1, 1}, {3});
  auto shape = TensorValue::fromVector<int64_t>(DataType::Int64, {4}, {1, 1, 3, 3});
  NodeCase c("MaxUnpool", {Attribute::ofInts("kernel_shape", {2, 2}), Attribute::ofInts("strides", {2, 2})},
             22);
  auto y = runOne(c, {x, indices, shape});
  auto expected = TensorValue::fromVector<float>(DataType::Float, {1, 1, 3, 3}, {0, 0, 0, 0, 7, 0, 0, 0, 0});
  EXPECT_TRUE(closeTensors(y, expected, 0, 0));
}

}  // namespace
}  // namespace onyx::exec::testing
