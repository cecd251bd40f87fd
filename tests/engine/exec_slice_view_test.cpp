// The Slice "view" variant (ops/tensor/slice_view_cpu.cpp) against the reference kernel: contiguous blocks
// come back as views of the input, other unit-step slices as copies of inner runs; negative steps, strided
// slices and strings go to the reference. Whole models run through the executor in Exec/SharedModel.
#include <gtest/gtest.h>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

TensorValue ints(std::vector<int64_t> v) {
  Dims dims = {int64_t(v.size())};
  return TensorValue::fromVector<int64_t>(DataType::Int64, dims, v);
}

void expectSame(const TensorValue& x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                std::vector<int64_t> axes, std::vector<int64_t> steps = {}) {
  std::vector<TensorValue> inputs = {x, ints(starts), ints(ends), ints(axes)};
  if (!steps.empty()) inputs.push_back(ints(steps));
  SCOPED_TRACE(::testing::PrintToString(starts) + " " + ::testing::PrintToString(ends) + " axes " +
               ::testing::PrintToString(axes) + " steps " + ::testing::PrintToString(steps));
  expectMatchesReference(NodeCase("Slice"), inputs, "view", 0, 0);
}

TEST(ExecSliceView, MatchesTheReference) {
  auto x = randomTensor(DataType::Float, {1, 6, 5, 7}, 1);
  expectSame(x, {0}, {3}, {1});                  // channel split: a view
  expectSame(x, {3}, {100}, {1});                // clamped end
  expectSame(x, {-2}, {-1}, {2});                // rows of each channel: copies
  expectSame(x, {1, 2}, {4, 6}, {1, 3});         // inner partial axis
  expectSame(x, {0, 0}, {1, 1}, {1, 2});         // a single row: a view
  expectSame(x, {4}, {2}, {1});                  // empty
  expectSame(x, {5}, {0}, {1}, {-2});            // negative step: reference
  expectSame(x, {0}, {7}, {3}, {3});             // strided: reference
  auto b = randomTensor(DataType::Int64, {3, 4, 2}, 2);
  expectSame(b, {1}, {3}, {0});
  expectSame(b, {1, 0}, {2, 1}, {0, 2});
}

TEST(ExecSliceView, ContiguousBlocksShareTheInputStorage) {
  auto x = randomTensor(DataType::Float, {1, 8, 4, 4}, 3);
  auto out = runNode(NodeCase("Slice"), {x, ints({4}), ints({8}), ints({1})}, "view");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const auto& y = std::get<TensorValue>((*out)[0]);
  EXPECT_EQ(y.dims(), (Dims{1, 4, 4, 4}));
  EXPECT_EQ(y.data<float>(), x.data<float>() + 4 * 16);
}

TEST(ExecSliceView, StringsGoToTheReference) {
  auto s = TensorValue::fromStrings({4}, {"a", "b", "c", "d"});
  auto out = runNode(NodeCase("Slice"), {s, ints({1}), ints({3}), ints({0})}, "view");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const auto& y = std::get<TensorValue>((*out)[0]);
  ASSERT_EQ(y.count(), 2);
  EXPECT_EQ(y.data<std::string>()[0], "b");
}

}  // namespace
}  // namespace onyx::exec::testing
