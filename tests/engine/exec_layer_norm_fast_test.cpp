// The fast LayerNormalization variant (ops/nn/layer_norm_fast_cpu.cpp) against the reference kernel: row
// lengths around the 16-lane blocks, inner axes, with and without bias, the Mean and InvStdDev outputs, a
// large offset (cancellation), and broadcast scales or doubles (handed to the reference).
#include <gtest/gtest.h>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

TEST(ExecLayerNormFast, RowsMatchTheReference) {
  uint64_t seed = 1;
  for (Dims dims : {Dims{3, 1}, Dims{2, 15}, Dims{4, 16}, Dims{2, 3, 33}, Dims{1, 128, 256}}) {
    for (int64_t axis : {int64_t(-1), int64_t(1)}) {
      SCOPED_TRACE(::testing::PrintToString(dims) + " axis " + std::to_string(axis));
      auto x = randomTensor(DataType::Float, dims, seed++, -3.0f, 5.0f);
      int64_t cols = 1;
      for (size_t d = size_t(axis < 0 ? dims.size() - 1 : size_t(axis)); d < dims.size(); ++d) cols *= dims[d];
      Dims normalized(dims.begin() + (axis < 0 ? long(dims.size()) - 1 : long(axis)), dims.end());
      auto scale = randomTensor(DataType::Float, normalized, seed++);
      auto bias = randomTensor(DataType::Float, normalized, seed++);
      NodeCase c("LayerNormalization", {Attribute::ofInt("axis", axis), Attribute::ofFloat("epsilon", 1e-5f)}, 17, 3);
      expectMatchesReference(c, {x, scale, bias}, "fast", 1e-4, 1e-5);
      expectMatchesReference(NodeCase("LayerNormalization", {Attribute::ofInt("axis", axis)}), {x, scale}, "fast",
                             1e-4, 1e-5);
    }
  }
}

TEST(ExecLayerNormFast, LargeOffsetAndReferenceCases) {
  auto x = randomTensor(DataType::Float, {4, 64}, 9, 1000.0f, 1001.0f);
  auto scale = randomTensor(DataType::Float, {64}, 10);
  expectMatchesReference(NodeCase("LayerNormalization"), {x, scale}, "fast", 1e-3, 1e-4);
  auto oneScale = TensorValue::fromVector<float>(DataType::Float, {1}, {2.0f});
  expectMatchesReference(NodeCase("LayerNormalization"), {x, oneScale}, "fast");
  auto d = randomTensor(DataType::Double, {3, 8}, 11);
  expectMatchesReference(NodeCase("LayerNormalization"), {d, randomTensor(DataType::Double, {8}, 12)}, "fast");
}

}  // namespace
}  // namespace onyx::exec::testing
