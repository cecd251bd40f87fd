#include "util/limits.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

namespace onyx {
namespace {

TEST(CheckedArithmetic, MultipliesExactlyUpToTheEdgeAndRejectsOverflow) {
  EXPECT_EQ(checkedMul(3, 7), 21);
  EXPECT_EQ(checkedMul(-4, 5), -20);
  EXPECT_EQ(checkedMul(int64_t(1) << 31, int64_t(1) << 31), int64_t(1) << 62);
  EXPECT_EQ(checkedMul(INT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(checkedMul(int64_t(1) << 32, int64_t(1) << 32), std::nullopt);  // 2^64 wraps to 0 unchecked
  EXPECT_EQ(checkedMul(INT64_MAX, 2), std::nullopt);
  EXPECT_EQ(checkedMul(INT64_MIN, -1), std::nullopt);
}

TEST(CheckedArithmetic, AddsExactlyUpToTheEdgeAndRejectsOverflow) {
  EXPECT_EQ(checkedAdd(INT64_MAX - 1, 1), INT64_MAX);
  EXPECT_EQ(checkedAdd(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checkedAdd(INT64_MIN, -1), std::nullopt);
  EXPECT_EQ(checkedAdd(-5, 2), -3);
}

TEST(CheckedArithmetic, ElementCountRejectsNegativeDimsAndOverflowingProducts) {
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{}), 1);  // a scalar
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{1, 3, 224, 224}), 150528);
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{2, -3}), std::nullopt);
  // 2^32 * 2^32 * 16 is 0 in wrapping arithmetic: the "2^64-element tensor of 0 bytes" of issue #25.
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{int64_t(1) << 32, int64_t(1) << 32, 16}), std::nullopt);
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{INT64_MAX, 1}), INT64_MAX);
  // A zero dim empties the tensor whatever the other dims are, even ones whose product would overflow.
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{INT64_MAX, INT64_MAX, 0}), 0);
  EXPECT_EQ(checkedElementCount(std::vector<int64_t>{INT64_MAX, 0, -1}), std::nullopt);
}

TEST(ResourceLimits, DefaultsComeFromPhysicalMemoryAndTheEnvironmentOverrides) {
  const int64_t gib = int64_t(1) << 30;
  ResourceLimits fromMemory = defaultResourceLimits(16 * gib, nullptr, nullptr);
  EXPECT_EQ(fromMemory.maxTensorBytes, 8 * gib);
  EXPECT_EQ(fromMemory.maxRunBytes, 16 * gib);
  EXPECT_EQ(fromMemory.maxShapeLength, 4096);
  EXPECT_EQ(fromMemory.maxLoopIterations, 100000000);
  EXPECT_EQ(defaultResourceLimits(16 * gib, nullptr, nullptr, "10000").maxLoopIterations, 10000);
  EXPECT_EQ(defaultResourceLimits(16 * gib, nullptr, nullptr, "lots").maxLoopIterations, 100000000);

  ResourceLimits overridden = defaultResourceLimits(16 * gib, "1000", "5000");
  EXPECT_EQ(overridden.maxTensorBytes, 1000);
  EXPECT_EQ(overridden.maxRunBytes, 5000);
  // Values that are not whole positive integers are ignored rather than read in part.
  for (const char* bad : {"", "0", "-5", "12junk", "0x10", "1.5"})
    EXPECT_EQ(defaultResourceLimits(16 * gib, bad, nullptr).maxTensorBytes, 8 * gib) << bad;
}

TEST(ResourceLimits, TensorSizeErrorsNameTheRequestTheSizeAndTheLimit) {
  auto fine = checkTensorSize(std::vector<int64_t>{2, 3}, 4, "output 0", "Relu (#1)");
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(*fine, 24);

  auto huge = checkTensorSize(std::vector<int64_t>{int64_t(1) << 62, 4}, 4, "output 0", "Relu (#1)");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().where, "Relu (#1)");
  EXPECT_NE(huge.error().message.find("output 0 asks for a tensor of [4611686018427387904, 4]"),
            std::string::npos)
      << huge.error().message;
  EXPECT_NE(huge.error().message.find("does not fit in 64 bits"), std::string::npos) << huge.error().message;

  auto over = checkTensorSize(std::vector<int64_t>{int64_t(1) << 61}, 8, "input 'x'", "x");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(
      over.error().message.find("2305843009213693952 elements, more than 2^63 bytes, over the limit of " +
                                std::to_string(resourceLimits().maxTensorBytes) + " bytes per tensor"),
      std::string::npos)
      << over.error().message;
  EXPECT_NE(over.error().message.find("ONYX_MAX_TENSOR_BYTES"), std::string::npos);

  auto negative = checkTensorSize(std::vector<int64_t>{-3, 4}, 4, "input 'x'", "x");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("negative dimension -3 in [-3, 4]"), std::string::npos);
}

TEST(ResourceLimits, ShapeLengthsOverTheLimitAreErrors) {
  EXPECT_TRUE(checkShapeLength(4, "Reshape shape", "n").ok());
  EXPECT_TRUE(checkShapeLength(resourceLimits().maxShapeLength, "Reshape shape", "n").ok());
  EXPECT_FALSE(checkShapeLength(resourceLimits().maxShapeLength + 1, "Reshape shape", "n").ok());
  EXPECT_FALSE(checkShapeLength(INT64_MAX, "Reshape shape", "n").ok());
  EXPECT_FALSE(checkShapeLength(-1, "Reshape shape", "n").ok());
}

}  // namespace
}  // namespace onyx
