// previewTensor: statistics over every element, first values, the narrow and odd element types.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/tensor_preview.h"
#include "exec/half.h"

namespace onyx {
namespace {

TEST(TensorPreview, FloatStatisticsSkipNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TensorPreview preview = previewTensor(Tensor::fromValues<float>(DataType::Float, {2, 2}, {1, -2, 4, nan}));
  EXPECT_EQ(preview.dtype, "float32");
  EXPECT_EQ(preview.shape, "[2, 2]");
  EXPECT_EQ(preview.elements, 4);
  EXPECT_EQ(preview.bytes, 16u);
  ASSERT_TRUE(preview.hasStatistics);
  EXPECT_EQ(preview.min, -2);
  EXPECT_EQ(preview.max, 4);
  EXPECT_DOUBLE_EQ(preview.mean, 1);
  EXPECT_EQ(preview.nanCount, 1);
  EXPECT_EQ(preview.summary(), "float32[2, 2], min -2, max 4, mean 1, 1 NaN: [1, -2, 4, nan]");
}

TEST(TensorPreview, FirstValuesAreTruncatedButStatisticsCoverAll) {
  std::vector<int64_t> values(10);
  for (int64_t i = 0; i < 10; ++i) values[i] = i * 1000000000000LL;
  TensorPreview preview = previewTensor(Tensor::fromValues<int64_t>(DataType::Int64, {10}, values), 3);
  EXPECT_EQ(preview.firstValues, (std::vector<std::string>{"0", "1000000000000", "2000000000000"}));
  EXPECT_TRUE(preview.truncated);
  EXPECT_EQ(preview.max, 9e12);
  EXPECT_EQ(preview.summary(),
            "int64[10], min 0, max 9e+12, mean 4.5e+12: [0, 1000000000000, 2000000000000, ...]");
}

TEST(TensorPreview, HalfBoolAndScalar) {
  std::vector<uint16_t> halves = {exec::Half(1.5f).bits, exec::Half(-0.25f).bits};
  EXPECT_EQ(previewTensor(Tensor::fromValues<uint16_t>(DataType::Float16, {2}, halves)).summary(),
            "float16[2], min -0.25, max 1.5, mean 0.625: [1.5, -0.25]");
  EXPECT_EQ(previewTensor(Tensor::fromValues<uint8_t>(DataType::Bool, {3}, {1, 0, 1})).firstValues,
            (std::vector<std::string>{"true", "false", "true"}));
  EXPECT_EQ(previewTensor(Tensor::fromValues<float>(DataType::Float, {}, {2.5f})).summary(),
            "float32[], min 2.5, max 2.5, mean 2.5: [2.5]");
}

TEST(TensorPreview, PackedInt4IsSignExtended) {
  // -1 and 7 share the first byte (low nibble first), -8 is alone in the second.
  TensorPreview preview = previewTensor(Tensor::fromValues<uint8_t>(DataType::Int4, {3}, {0x7f, 0x08}));
  EXPECT_EQ(preview.firstValues, (std::vector<std::string>{"-1", "7", "-8"}));
  EXPECT_EQ(preview.min, -8);
}

TEST(TensorPreview, StringsAreQuotedWithoutStatistics) {
  TensorPreview preview = previewTensor(Tensor::strings({2}, {"a", "bc"}));
  EXPECT_FALSE(preview.hasStatistics);
  EXPECT_EQ(preview.summary(), "string[2]: [\"a\", \"bc\"]");
}

TEST(TensorPreview, EmptyTensor) {
  TensorPreview preview = previewTensor(Tensor::fromValues<float>(DataType::Float, {0, 3}, {}));
  EXPECT_FALSE(preview.hasStatistics);
  EXPECT_EQ(preview.summary(), "float32[0, 3]: empty");
}

TEST(TensorPreview, UnreadableExternalDataIsAnError) {
  TensorPreview preview = previewTensor(Tensor::external(
      DataType::Float, {4}, {.location = "missing.bin", .resolvedPath = "/nonexistent/missing.bin"}));
  EXPECT_FALSE(preview.error.empty());
  EXPECT_TRUE(preview.firstValues.empty());
  EXPECT_EQ(preview.summary().rfind("float32[4]: ", 0), 0u) << preview.summary();
}

}  // namespace
}  // namespace onyx
