// Kernels added for the ONNX backend conformance, checked on the shapes and options its cases leave thin:
// Unique along an inner axis unsorted, StringSplit on whitespace with maxsplit, TfIdfVectorizer with skips,
// a DFT round trip of odd length, GridSample over an identity AffineGrid, circular TensorScatter, Resize
// cubic on a constant, grouped-query LinearAttention.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/kernel_util.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

std::vector<TensorValue> runAll(const NodeCase& c, const std::vector<TensorValue>& inputs) {
  auto result = runNode(c, inputs, "reference");
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().toString());
  std::vector<TensorValue> out;
  if (result.ok())
    for (auto& v : *result) out.push_back(std::get<TensorValue>(v).clone());
  return out;
}

std::vector<int64_t> ints(const TensorValue& t) {
  return t.toInts();
}

TEST(ExecConformanceKernels, UniqueSlicesAlongInnerAxisInFirstSeenOrder) {
  // x[:, k, :] for k = 0..3: A, B, A, C with A = [[1,2],[5,6]], B = [[0,0],[0,0]], C = [[1,2],[5,7]].
  auto x = TensorValue::fromVector<int32_t>(DataType::Int32, {2, 4, 2},
                                            {1, 2, 0, 0, 1, 2, 1, 2, 5, 6, 0, 0, 5, 6, 5, 7});
  NodeCase c("Unique", {Attribute::ofInt("axis", -2), Attribute::ofInt("sorted", 0)}, 11, 4);
  auto out = runAll(c, {x});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].dims(), (Dims{2, 3, 2}));
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{1, 2, 0, 0, 1, 2, 5, 6, 0, 0, 5, 7}));
  EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{0, 1, 3}));     // first occurrences
  EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{0, 1, 0, 2}));  // inverse
  EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{2, 1, 1}));     // counts
}

TEST(ExecConformanceKernels, StringSplitOnWhitespaceWithMaxsplitPadsRows) {
  auto x = TensorValue::fromStrings({3}, {"  a  b c ", "", "one"});
  auto out = runAll(NodeCase("StringSplit", {Attribute::ofInt("maxsplit", 1)}, 20, 2), {x});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dims(), (Dims{3, 2}));
  const std::string* s = out[0].data<std::string>();
  EXPECT_EQ(std::vector<std::string>(s, s + 6), (std::vector<std::string>{"a", "b c ", "", "", "one", ""}));
  EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{2, 0, 1}));
}

TEST(ExecConformanceKernels, TfIdfCountsSkipGramsAndUnigramsOnce) {
  // Pool: unigrams {7}, bigrams {(7, 8)}. Row 7 9 8 7: unigram 7 twice; bigram (7, 8) only with skip 1.
  auto x = TensorValue::fromVector<int64_t>(DataType::Int64, {1, 4}, {7, 9, 8, 7});
  NodeCase c("TfIdfVectorizer",
             {Attribute::ofInt("min_gram_length", 1), Attribute::ofInt("max_gram_length", 2),
              Attribute::ofInt("max_skip_count", 1), Attribute::ofString("mode", "TF"),
              Attribute::ofInts("ngram_counts", {0, 1}), Attribute::ofInts("ngram_indexes", {1, 0}),
              Attribute::ofInts("pool_int64s", {7, 7, 8})},
             9);
  auto out = runAll(c, {x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(closeTensors(out[0], TensorValue::fromVector<float>(DataType::Float, {1, 2}, {1, 2}), 0, 0));
}

TEST(ExecConformanceKernels, DftOneSidedRoundTripOfOddLength) {
  auto x = randomTensor(DataType::Float, {2, 7, 1}, 11);
  auto length = TensorValue::scalar<int64_t>(DataType::Int64, 7);
  auto axis = TensorValue::scalar<int64_t>(DataType::Int64, 1);
  auto spectrum = runAll(NodeCase("DFT", {Attribute::ofInt("onesided", 1)}, 20), {x, TensorValue(), axis});
  ASSERT_EQ(spectrum.size(), 1u);
  EXPECT_EQ(spectrum[0].dims(), (Dims{2, 4, 2}));
  auto back = runAll(NodeCase("DFT", {Attribute::ofInt("onesided", 1), Attribute::ofInt("inverse", 1)}, 20),
                     {spectrum[0], length, axis});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(closeTensors(back[0], x, 1e-5, 1e-5));
}

TEST(ExecConformanceKernels, GridSampleOverIdentityAffineGridReproducesInput) {
  auto theta = TensorValue::fromVector<float>(DataType::Float, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  auto size = TensorValue::fromVector<int64_t>(DataType::Int64, {4}, {1, 2, 3, 5});
  auto grid = runAll(NodeCase("AffineGrid", {}, 20), {theta, size});
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0].dims(), (Dims{1, 3, 5, 2}));
  auto x = randomTensor(DataType::Float, {1, 2, 3, 5}, 5);
  for (const char* mode : {"linear", "cubic", "nearest"}) {
    auto y = runAll(NodeCase("GridSample", {Attribute::ofString("mode", mode)}, 22), {x, grid[0]});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_TRUE(closeTensors(y[0], x, 1e-5, 1e-5)) << mode;
  }
}

TEST(ExecConformanceKernels, TensorScatterCircularWrapsAroundTheCache) {
  auto past = TensorValue::fromVector<float>(DataType::Float, {1, 3, 1}, {1, 2, 3});
  auto update = TensorValue::fromVector<float>(DataType::Float, {1, 2, 1}, {8, 9});
  auto at = TensorValue::fromVector<int64_t>(DataType::Int64, {1}, {2});
  auto y =
      runAll(NodeCase("TensorScatter", {Attribute::ofString("mode", "circular")}, 24), {past, update, at});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_TRUE(
      closeTensors(y[0], TensorValue::fromVector<float>(DataType::Float, {1, 3, 1}, {9, 2, 8}), 0, 0));
  auto linear = runNode(NodeCase("TensorScatter", {}, 24), {past, update, at}, "reference");
  EXPECT_FALSE(linear.ok());  // linear mode must not run past the end
}

TEST(ExecConformanceKernels, ResizeCubicKeepsAConstantConstant) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {1, 1, 1, 3}, {2.5f, 2.5f, 2.5f});
  auto sizes = TensorValue::fromVector<int64_t>(DataType::Int64, {4}, {1, 1, 2, 7});
  for (int antialias : {0, 1}) {
    NodeCase c("Resize", {Attribute::ofString("mode", "cubic"), Attribute::ofInt("antialias", antialias)},
               18);
    auto y = runAll(c, {x, TensorValue(), TensorValue(), sizes});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].dims(), (Dims{1, 1, 2, 7}));
    for (int64_t i = 0; i < y[0].count(); ++i) EXPECT_NEAR(y[0].data<float>()[i], 2.5f, 1e-5);
  }
}

TEST(ExecConformanceKernels, LinearAttentionQueryHeadsShareTheirKvHeadState) {
  // One step, one kv head read by two query heads; linear rule: S = k v^T, out_g = scale * q_g^T S.
  auto q = TensorValue::fromVector<float>(DataType::Float, {1, 1, 4}, {1, 0, 0, 2});
  auto k = TensorValue::fromVector<float>(DataType::Float, {1, 1, 2}, {3, 4});
  auto v = TensorValue::fromVector<float>(DataType::Float, {1, 1, 3}, {1, 2, 3});
  NodeCase c("LinearAttention",
             {Attribute::ofInt("q_num_heads", 2), Attribute::ofInt("kv_num_heads", 1),
              Attribute::ofString("update_rule", "linear"), Attribute::ofFloat("scale", 0.5f)},
             27, 2);
  auto out = runAll(c, {q, k, v});
  ASSERT_EQ(out.size(), 2u);
  // q_0 = [1, 0] reads 3 v, q_1 = [0, 2] reads 8 v; times 0.5.
  EXPECT_TRUE(closeTensors(
      out[0], TensorValue::fromVector<float>(DataType::Float, {1, 1, 6}, {1.5, 3, 4.5, 4, 8, 12}), 1e-6,
      1e-6));
  EXPECT_EQ(out[1].dims(), (Dims{1, 1, 2, 3}));
}

}  // namespace
}  // namespace onyx::exec::testing
