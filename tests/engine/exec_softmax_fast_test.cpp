// The fast Softmax/LogSoftmax variant (ops/nn/softmax_fast_cpu.cpp) against the reference kernel: row
// lengths around the 16-lane blocks, large magnitudes, the legacy flattening (opset 11), other axes and
// types (handed to the reference), NaN rows and empty tensors.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

TEST(ExecSoftmaxFast, RowsMatchTheReference) {
  uint64_t seed = 1;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (Dims dims : {Dims{3, 1}, Dims{2, 15}, Dims{4, 16}, Dims{2, 3, 17}, Dims{1, 4, 77, 77}, Dims{5, 1000}}) {
      SCOPED_TRACE(std::string(op) + " " + ::testing::PrintToString(dims));
      auto x = randomTensor(DataType::Float, dims, seed++, -30.0f, 30.0f);
      expectMatchesReference(NodeCase(op), {x}, "fast", 1e-5, 1e-6);
      expectMatchesReference(NodeCase(op, {Attribute::ofInt("axis", 1)}, 11), {x}, "fast", 1e-5, 1e-6);
    }
  }
}

TEST(ExecSoftmaxFast, OtherAxesTypesNanAndEmpty) {
  auto x = randomTensor(DataType::Float, {2, 5, 3}, 4);
  expectMatchesReference(NodeCase("Softmax", {Attribute::ofInt("axis", 1)}), {x}, "fast");
  expectMatchesReference(NodeCase("Softmax"), {randomTensor(DataType::Double, {3, 20}, 5)}, "fast");
  auto withNan = randomTensor(DataType::Float, {2, 20}, 6);
  withNan.mutableSpan<float>()[7] = NAN;
  auto out = runNode({"Softmax"}, {withNan}, "fast");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const auto& y = std::get<TensorValue>((*out)[0]);
  for (int64_t k = 0; k < 20; ++k) EXPECT_TRUE(std::isnan(y.data<float>()[k])) << k;
  for (int64_t k = 20; k < 40; ++k) EXPECT_FALSE(std::isnan(y.data<float>()[k])) << k;
  expectMatchesReference(NodeCase("Softmax"), {randomTensor(DataType::Float, {0, 4}, 7)}, "fast");
}

}  // namespace
}  // namespace onyx::exec::testing
