// The tiled Transpose variant (ops/tensor/transpose_tiled_cpu.cpp) against the reference kernel: every
// permutation of small ranks, attention's perms, sizes that are not multiples of the tile, size-1 and empty
// dims, negative perm entries, every element size and strings (handed to the reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

NodeCase transposeCase(std::vector<int64_t> perm) {
  return NodeCase("Transpose", {Attribute::ofInts("perm", std::move(perm))});
}

TEST(ExecTransposeTiled, EveryPermutationOfRanksTwoToFour) {
  uint64_t seed = 1;
  for (Dims dims : {Dims{37, 70}, Dims{3, 33, 65}, Dims{2, 5, 1, 40}, Dims{1, 33, 12, 7}}) {
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    auto x = randomTensor(DataType::Float, dims, seed++);
    do {
      SCOPED_TRACE(::testing::PrintToString(dims) + " perm " + ::testing::PrintToString(perm));
      expectMatchesReference(transposeCase(perm), {x}, "tiled", 0, 0);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(ExecTransposeTiled, AttentionPermsAndDefaultReverse) {
  auto x = randomTensor(DataType::Float, {1, 77, 12, 64}, 3);
  expectMatchesReference(transposeCase({0, 2, 1, 3}), {x}, "tiled", 0, 0);
  expectMatchesReference(transposeCase({0, 2, 3, 1}), {x}, "tiled", 0, 0);
  expectMatchesReference(transposeCase({0, -2, -1, 1}), {x}, "tiled", 0, 0);
  expectMatchesReference(NodeCase("Transpose"), {x}, "tiled", 0, 0);
}

TEST(ExecTransposeTiled, ElementSizesEmptyTensorsAndStrings) {
  for (DataType t : {DataType::Bool, DataType::Float16, DataType::Int32, DataType::Double, DataType::Int64}) {
    SCOPED_TRACE(int(t));
    expectMatchesReference(transposeCase({2, 0, 1}), {randomTensor(t, {5, 34, 33}, 7)}, "tiled", 0, 0);
  }
  expectMatchesReference(transposeCase({1, 0, 2}), {randomTensor(DataType::Float, {3, 0, 4}, 8)}, "tiled");
  auto strings = TensorValue::fromStrings({2, 3}, {"a", "b", "c", "d", "e", "f"});
  auto out = runNode(transposeCase({1, 0}), {strings}, "tiled");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const auto& y = std::get<TensorValue>((*out)[0]);
  EXPECT_EQ(y.dims(), (Dims{3, 2}));
  EXPECT_EQ(y.data<std::string>()[1], "d");
}

TEST(ExecTransposeTiled, BadPermIsAnError) {
  auto x = randomTensor(DataType::Float, {2, 3}, 9);
  EXPECT_FALSE(runNode(transposeCase({0, 0}), {x}, "tiled").ok());
  EXPECT_FALSE(runNode(transposeCase({0, 1, 2}), {x}, "tiled").ok());
}

}  // namespace
}  // namespace onyx::exec::testing
