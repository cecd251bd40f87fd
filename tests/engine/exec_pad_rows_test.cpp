// Pad's rows variant (ops/tensor/pad_cpu.cpp) against the reference kernel, exactly: every mode, pads on
// the last axis and the outer ones, crops (negative pads), axes, a padding wider than the axis (reflect and
// wrap go round more than once), empty axes, and 1- to 8-byte element types.
#include <gtest/gtest.h>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

TensorValue int64s(std::vector<int64_t> values) {
  const int64_t n = int64_t(values.size());
  return TensorValue::fromVector<int64_t>(DataType::Int64, {n}, std::move(values));
}

TEST(ExecPadRows, EveryModeMatchesTheReference) {
  uint64_t seed = 1;
  struct PadCase {
    Dims dims;
    std::vector<int64_t> pads;
  };
  const PadCase cases[] = {
      {{1, 3, 20, 23}, {0, 0, 0, 0, 0, 0, 12, 9}},    // an image padded to a batch's size
      {{2, 3, 5, 7}, {0, 1, 2, 3, 1, 0, 2, 1}},       // every axis
      {{2, 3, 5, 7}, {0, 0, -2, -3, 0, 0, 1, -2}},    // crops on both ends of the last axes
      {{4, 6}, {0, 15, 0, 17}},                       // wider than the axis (reflect and wrap go round)
      {{9}, {4, 5}},                                  // rank 1
      {{3, 0, 4}, {0, 1, 1, 0, 2, 1}},                // an empty axis
  };
  for (const char* mode : {"constant", "edge", "reflect", "wrap"}) {
    for (const PadCase& p : cases) {
      for (DataType dtype : {DataType::Float, DataType::Int64, DataType::Uint8, DataType::Float16, DataType::Bool}) {
        SCOPED_TRACE(std::string(mode) + " " + ::testing::PrintToString(p.dims) + " " + std::string(dataTypeName(dtype)));
        auto x = randomTensor(dtype, p.dims, seed++, -5.0f, 5.0f);
        NodeCase c("Pad", {Attribute::ofString("mode", mode)}, 18);
        TensorValue value = randomTensor(dtype, {}, seed++, -5.0f, 5.0f);
        expectMatchesReference(c, {x, int64s(p.pads), value}, "rows", 0, 0);
        expectMatchesReference(c, {x, int64s(p.pads)}, "rows", 0, 0);  // the constant 0
      }
    }
  }
}

TEST(ExecPadRows, AxesInputPadsOnlyThoseAxes) {
  auto x = randomTensor(DataType::Float, {2, 3, 5, 7}, 7);
  for (const char* mode : {"constant", "reflect"}) {
    SCOPED_TRACE(mode);
    NodeCase c("Pad", {Attribute::ofString("mode", mode)}, 18);
    expectMatchesReference(c, {x, int64s({1, 2, 3, 4}), TensorValue(), int64s({1, -1})}, "rows", 0, 0);
    expectMatchesReference(c, {x, int64s({2, 2}), TensorValue(), int64s({-2})}, "rows", 0, 0);
  }
}

// Unpinned, a float image runs the rows variant.
TEST(ExecPadRows, IsTheVariantThatRuns) {
  auto model = singleNodeModel(NodeCase("Pad", {}, 18), {randomTensor(DataType::Float, {1, 3, 8, 8}, 9), int64s({0, 0, 0, 0, 0, 0, 2, 2})});
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto outputs = (*executor)->run({{"x0", randomTensor(DataType::Float, {1, 3, 8, 8}, 9)}, {"x1", int64s({0, 0, 0, 0, 0, 0, 2, 2})}});
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  bool seen = false;
  for (const ProfileEvent& e : (*executor)->profiler().events()) {
    if (e.opType != "Pad") continue;
    EXPECT_EQ(e.variant, "rows");
    seen = true;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace onyx::exec::testing
