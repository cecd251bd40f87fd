// oneDNN kernels (Conv, MatMul, Gemm) against the reference kernels on seeded random data and awkward
// shapes: groups, depthwise, strides, padding, dilation, 1-D and 3-D convolutions, batch broadcast,
// vectors, transposes, broadcast bias.
#include <gtest/gtest.h>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

struct ConvCase {
  Dims x, w;
  std::vector<Attribute> attrs;
  bool bias;
};

TEST(ExecDnnl, ConvMatchesReference) {
  std::vector<ConvCase> cases = {
      {{1, 3, 9, 9}, {4, 3, 3, 3}, {}, true},
      {{2, 4, 8, 7},
       {6, 2, 3, 3},
       {Attribute::ofInt("group", 2), Attribute::ofInts("pads", {1, 1, 1, 1})},
       false},
      {{1, 8, 10, 10},
       {8, 1, 3, 3},
       {Attribute::ofInt("group", 8), Attribute::ofInts("strides", {2, 2}),
        Attribute::ofInts("pads", {1, 0, 1, 0})},
       true},
      {{1, 2, 11, 11},
       {3, 2, 3, 3},
       {Attribute::ofInts("dilations", {2, 2}), Attribute::ofString("auto_pad", "SAME_UPPER")},
       true},
      {{1, 16, 5, 5}, {32, 16, 1, 1}, {}, true},
      {{2, 3, 17}, {4, 3, 5}, {Attribute::ofInts("strides", {3})}, true},
      {{1, 2, 4, 5, 6}, {3, 2, 2, 3, 3}, {Attribute::ofInts("pads", {0, 1, 1, 1, 1, 0})}, false},
  };
  uint64_t seed = 7;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(describeTensor(DataType::Float, c.x) + " * " + describeTensor(DataType::Float, c.w));
    std::vector<TensorValue> inputs = {randomTensor(DataType::Float, c.x, seed++),
                                       randomTensor(DataType::Float, c.w, seed++)};
    if (c.bias) inputs.push_back(randomTensor(DataType::Float, {c.w[0]}, seed++));
    expectMatchesReference(NodeCase("Conv", c.attrs), inputs, "dnnl", 1e-4, 1e-4);
  }
}

TEST(ExecDnnl, MatMulMatchesReferenceWithBroadcastAndVectors) {
  std::vector<std::pair<Dims, Dims>> cases = {
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{1, 3, 4}, {6, 4, 2}},
      {{4}, {4, 3}},
      {{3, 4}, {4}},
      {{5}, {5}},
      {{2, 1, 3, 7}, {1, 4, 7, 2}},
      {{3, 1}, {1, 3}},
  };
  uint64_t seed = 50;
  for (auto [a, b] : cases) {
    SCOPED_TRACE(describeTensor(DataType::Float, a) + " x " + describeTensor(DataType::Float, b));
    expectMatchesReference(
        {"MatMul"}, {randomTensor(DataType::Float, a, seed++), randomTensor(DataType::Float, b, seed++)},
        "dnnl", 1e-4, 1e-5);
  }
}

TEST(ExecDnnl, GemmMatchesReferenceWithTransposesAndBias) {
  uint64_t seed = 90;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (Dims c : {Dims{}, Dims{5}, Dims{1, 5}, Dims{3, 5}, Dims{3, 1}}) {
        SCOPED_TRACE("transA " + std::to_string(ta) + " transB " + std::to_string(tb) + " C " +
                     describeTensor(DataType::Float, c));
        Dims a = ta ? Dims{4, 3} : Dims{3, 4};
        Dims b = tb ? Dims{5, 4} : Dims{4, 5};
        std::vector<TensorValue> inputs = {randomTensor(DataType::Float, a, seed++),
                                           randomTensor(DataType::Float, b, seed++)};
        if (!c.empty()) inputs.push_back(randomTensor(DataType::Float, c, seed++));
        NodeCase gemm("Gemm", {Attribute::ofInt("transA", ta), Attribute::ofInt("transB", tb),
                               Attribute::ofFloat("alpha", 0.5f), Attribute::ofFloat("beta", 2.0f)});
        expectMatchesReference(gemm, inputs, "dnnl", 1e-4, 1e-5);
      }
}

TEST(ExecDnnl, DoubleInputsUseTheReferencePath) {
  auto a = randomTensor(DataType::Double, {2, 3}, 1);
  auto b = randomTensor(DataType::Double, {3, 2}, 2);
  expectMatchesReference({"MatMul"}, {a, b}, "dnnl", 1e-12, 1e-12);
}

}  // namespace
}  // namespace onyx::exec::testing
