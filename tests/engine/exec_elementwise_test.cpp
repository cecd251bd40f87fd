// Element-wise kernels: optimized variants against the reference on seeded random data and awkward shapes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "exec/cpu/fast_math.h"
#include "exec/kernel_util.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

const std::vector<std::pair<Dims, Dims>> kBroadcastCases = {
    {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}},       {{2, 3, 4}, {3, 1}},
    {{1}, {5, 1, 7}},       {{2, 1, 4}, {1, 3, 1}}, {{0, 3}, {1, 3}},
    {{}, {2, 2}},           {{70, 300}, {300}},     {{8, 1, 33, 17}, {8, 5, 1, 17}},
    // Large enough to split between threads: a squeeze-excitation scale over channels-last rows of 16, and
    // rows whose chunks end inside a run of the innermost outer dim.
    {{3, 50, 37, 16}, {3, 1, 1, 16}}, {{2, 40, 1, 100}, {1, 1, 30, 100}},
};

TEST(ExecElementwise, BinaryFastMatchesReferenceUnderBroadcasting) {
  uint64_t seed = 1;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "PRelu"}) {
    for (auto [a, b] : kBroadcastCases) {
      if (std::string(op) == "PRelu") {  // slope broadcasts to x only
        auto out = broadcastShapes({&a, &b});
        if (!out || *out != a) continue;
      }
      for (DataType dtype : {DataType::Float, DataType::Int64, DataType::Float16}) {
        SCOPED_TRACE(std::string(op) + " " + describeTensor(dtype, a) + " " + describeTensor(dtype, b));
        auto x = randomTensor(dtype, a, seed++);
        auto y = randomTensor(dtype, b, seed++, 0.5f, 2.0f);
        expectMatchesReference({op}, {x, y}, "fast");
      }
    }
  }
}

TEST(ExecElementwise, UnaryFastMatchesReference) {
  uint64_t seed = 100;
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Exp", "Erf"}) {
    for (Dims dims : {Dims{}, Dims{0}, Dims{1}, Dims{3, 1, 5}, Dims{200000}}) {
      SCOPED_TRACE(std::string(op) + " " + describeTensor(DataType::Float, dims));
      auto x = randomTensor(DataType::Float, dims, seed++, -6.0f, 6.0f);
      expectMatchesReference({op}, {x}, "fast", 2e-6, 2e-7);
    }
  }
}

// fastErf runs sixteen lanes at a time (erfLanes) and the tail element by element (erfApprox): the same
// operations in the same order, so each value comes out the same either way, on this CPU's set (and on
// AVX2 under engine.forced_avx2). Values around 0.5, where the two formulas meet, 0, signs, large and NaN.
TEST(ExecElementwise, ErfLanesMatchTheScalarPathBitForBit) {
  std::vector<float> x = {0.0f, -0.0f, 0.4999999f, 0.5f, -0.5f, 0.5000001f, 1e-30f, -3.0f, 9.0f, -40.0f,
                          std::numeric_limits<float>::quiet_NaN(), 1e-5f, 2.5f, -1.25f, 0.75f, 6.0f};
  for (int i = 0; i < 4096; ++i) x.push_back(-5.0f + 10.0f * float(i) / 4096.0f);
  std::vector<float> lanes(x.size()), scalar(x.size());
  fastErf(x.data(), lanes.data(), int64_t(x.size()) / 16 * 16, 0, 0);  // whole blocks of sixteen
  for (size_t i = 0; i < x.size(); ++i) fastErf(&x[i], &scalar[i], 1, 0, 0);
  for (size_t i = 0; i < x.size() / 16 * 16; ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(lanes[i])) << i;
      continue;
    }
    EXPECT_EQ(std::bit_cast<uint32_t>(lanes[i]), std::bit_cast<uint32_t>(scalar[i])) << "x = " << x[i];
  }
}

TEST(ExecElementwise, BroadcastFailureNamesNodeAndInput) {
  auto x = randomTensor(DataType::Float, {2, 3}, 1);
  auto y = randomTensor(DataType::Float, {4}, 2);
  auto result = runNode({"Add"}, {x, y}, "");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().toString(),
            "Add cannot broadcast float32[2, 3] with float32[4] (Add 'node' (#1), input 1 'x1')");
}

TEST(ExecElementwise, IntegerDivisionByZeroGivesZero) {
  auto x = TensorValue::fromVector<int32_t>(DataType::Int32, {3}, {7, -7, 9});
  auto y = TensorValue::fromVector<int32_t>(DataType::Int32, {3}, {2, 0, -1});
  auto result = runNode({"Div"}, {x, y}, "");
  ASSERT_TRUE(result.ok()) << result.error().toString();
  const auto& out = std::get<TensorValue>((*result)[0]);
  EXPECT_EQ(out.toInts(), (std::vector<int64_t>{3, 0, -9}));
}

}  // namespace
}  // namespace onyx::exec::testing
