// The fast 2-D pooling variant (ops/nn/pool2d_cpu.cpp) against the reference kernel: padding corners,
// strides, dilations, ceil_mode, count_include_pad, size-1 and empty images, NaN inputs, other ranks and types
// (handed to the reference).
#include <gtest/gtest.h>

#include <cmath>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

Attribute intsAttr(const std::string& name, std::vector<int64_t> v) { return Attribute::ofInts(name, std::move(v)); }
Attribute intAttr(const std::string& name, int64_t v) { return Attribute::ofInt(name, v); }

// Equal outputs, or the same refusal where the window does not fit the padded image.
void expectSameAsReference(const NodeCase& c, const TensorValue& x, double rtol, double atol) {
  if (!runNode(c, {x}, "reference").ok()) {
    EXPECT_FALSE(runNode(c, {x}, "fast").ok());
    return;
  }
  expectMatchesReference(c, {x}, "fast", rtol, atol);
}

TEST(ExecPoolFast, WindowsMatchTheReference) {
  struct Window {
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil = 0;
  };
  const Window windows[] = {
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},  // resnet's stem pool
      {{3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},  // squeezenet's, ceil_mode
      {{2, 3}, {1, 2}, {0, 1, 2, 0}, {2, 1}},
      {{5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}},
      {{4, 1}, {3, 1}, {3, 0, 3, 0}, {1, 1}, 1},
  };
  uint64_t seed = 1;
  for (const Window& w : windows) {
    for (Dims dims : {Dims{1, 2, 9, 11}, Dims{2, 3, 1, 7}, Dims{1, 1, 16, 5}}) {
      auto x = randomTensor(DataType::Float, dims, seed++);
      std::vector<Attribute> attrs = {intsAttr("kernel_shape", w.kernel), intsAttr("strides", w.strides),
                                      intsAttr("pads", w.pads), intsAttr("dilations", w.dilations),
                                      intAttr("ceil_mode", w.ceil)};
      SCOPED_TRACE(describeTensor(DataType::Float, dims) + " kernel " + std::to_string(w.kernel[0]) + "x" +
                   std::to_string(w.kernel[1]));
      expectSameAsReference(NodeCase("MaxPool", attrs, 12), x, 0, 0);
      for (int64_t countPad : {0, 1}) {
        std::vector<Attribute> average = attrs;
        average.erase(average.begin() + 3);  // AveragePool takes dilations from opset 19
        average.push_back(intAttr("count_include_pad", countPad));
        expectSameAsReference(NodeCase("AveragePool", average, 17), x, 1e-6, 1e-7);
      }
    }
  }
}

TEST(ExecPoolFast, NanFirstInTheWindowStaysAsInTheReference) {
  TensorValue x = randomTensor(DataType::Float, {1, 1, 4, 4}, 3);
  x.data<float>()[0] = std::nanf("");
  x.data<float>()[6] = std::nanf("");
  NodeCase c("MaxPool", {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {2, 2})}, 12);
  auto fast = runNode(c, {x}, "fast");
  auto ref = runNode(c, {x}, "reference");
  ASSERT_TRUE(fast.ok() && ref.ok());
  const float* a = std::get<TensorValue>((*fast)[0]).data<float>();
  const float* b = std::get<TensorValue>((*ref)[0]).data<float>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(std::isnan(a[i]), std::isnan(b[i])) << i;
  EXPECT_TRUE(std::isnan(a[0]));  // a NaN first in its window
}

TEST(ExecPoolFast, OtherRanksAndTypesGoToTheReference) {
  NodeCase c("MaxPool", {intsAttr("kernel_shape", {3}), intsAttr("strides", {2})}, 12);
  expectMatchesReference(c, {randomTensor(DataType::Float, {2, 3, 10}, 4)}, "fast", 0, 0);
  NodeCase c2("MaxPool", {intsAttr("kernel_shape", {2, 2})}, 12);
  expectMatchesReference(c2, {randomTensor(DataType::Double, {1, 2, 5, 5}, 5)}, "fast", 0, 0);
}

}  // namespace
}  // namespace onyx::exec::testing
