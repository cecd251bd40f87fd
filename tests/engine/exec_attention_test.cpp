// Attention, RotaryEmbedding and Einsum kernels against plain loops and against equivalent formulations:
// grouped KV heads equal explicitly repeated heads, is_causal equals a lower-triangular boolean mask.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_kernel_test_util.h"

namespace onyx::exec {
namespace {

using testing::closeTensors;
using testing::NodeCase;
using testing::randomTensor;
using testing::runNode;

TensorValue firstOutput(const Expected<std::vector<RunValue>>& result, size_t index = 0) {
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().toString());
  if (!result.ok() || result->size() <= index) return {};
  return std::get<TensorValue>((*result)[index]);
}

// softmax(Q K^T / sqrt(D)) V for 4D float tensors with equal head counts, written out.
TensorValue naiveAttention(const TensorValue& q, const TensorValue& k, const TensorValue& v) {
  const int64_t batch = q.dim(0), heads = q.dim(1), sq = q.dim(2), d = q.dim(3), skv = k.dim(2),
                dv = v.dim(3);
  TensorValue y = TensorValue::allocate(DataType::Float, {batch, heads, sq, dv});
  for (int64_t bh = 0; bh < batch * heads; ++bh) {
    for (int64_t i = 0; i < sq; ++i) {
      std::vector<double> p(static_cast<size_t>(skv));
      double maxScore = -1e300, sum = 0;
      for (int64_t j = 0; j < skv; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c)
          dot += double(q.data<float>()[(bh * sq + i) * d + c]) * k.data<float>()[(bh * skv + j) * d + c];
        p[size_t(j)] = dot / std::sqrt(double(d));
        maxScore = std::max(maxScore, p[size_t(j)]);
      }
      for (double& x : p) sum += (x = std::exp(x - maxScore));
      for (int64_t c = 0; c < dv; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < skv; ++j)
          acc += p[size_t(j)] / sum * v.data<float>()[(bh * skv + j) * dv + c];
        y.data<float>()[(bh * sq + i) * dv + c] = float(acc);
      }
    }
  }
  return y;
}

// Repeats each KV head `times` times along axis 1: [h0, h0, h1, h1, ...].
TensorValue repeatHeads(const TensorValue& t, int64_t times) {
  const int64_t batch = t.dim(0), heads = t.dim(1), inner = t.dim(2) * t.dim(3);
  TensorValue out = TensorValue::allocate(t.dtype(), {batch, heads * times, t.dim(2), t.dim(3)});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads * times; ++h)
      for (int64_t x = 0; x < inner; ++x)
        out.data<float>()[(b * heads * times + h) * inner + x] =
            t.data<float>()[(b * heads + h / times) * inner + x];
  return out;
}

TEST(ExecAttention, MatchesNaiveSoftmaxComposition) {
  TensorValue q = randomTensor(DataType::Float, {2, 3, 4, 8}, 1);
  TensorValue k = randomTensor(DataType::Float, {2, 3, 6, 8}, 2);
  TensorValue v = randomTensor(DataType::Float, {2, 3, 6, 5}, 3);
  TensorValue y = firstOutput(runNode(NodeCase("Attention", {}, 23), {q, k, v}, "reference"));
  EXPECT_TRUE(closeTensors(y, naiveAttention(q, k, v), 1e-4, 1e-5));
}

TEST(ExecAttention, GroupedHeadsEqualRepeatedHeads) {
  TensorValue q = randomTensor(DataType::Float, {1, 6, 3, 4}, 4);
  TensorValue k = randomTensor(DataType::Float, {1, 2, 5, 4}, 5);
  TensorValue v = randomTensor(DataType::Float, {1, 2, 5, 4}, 6);
  TensorValue grouped = firstOutput(runNode(NodeCase("Attention", {}, 23), {q, k, v}, "reference"));
  TensorValue expected = naiveAttention(q, repeatHeads(k, 3), repeatHeads(v, 3));
  EXPECT_TRUE(closeTensors(grouped, expected, 1e-4, 1e-5));
}

TEST(ExecAttention, CausalEqualsLowerTriangularMaskWithPastOffset) {
  // Two cached keys precede three new queries: query i sees keys 0..i+2.
  TensorValue q = randomTensor(DataType::Float, {1, 2, 3, 4}, 7);
  TensorValue k = randomTensor(DataType::Float, {1, 2, 3, 4}, 8);
  TensorValue v = randomTensor(DataType::Float, {1, 2, 3, 4}, 9);
  TensorValue pastK = randomTensor(DataType::Float, {1, 2, 2, 4}, 10);
  TensorValue pastV = randomTensor(DataType::Float, {1, 2, 2, 4}, 11);
  TensorValue mask = TensorValue::allocate(DataType::Bool, {3, 5});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) mask.data<bool>()[i * 5 + j] = j <= i + 2;
  auto causal = runNode(NodeCase("Attention", {Attribute::ofInt("is_causal", 1)}, 23, 3),
                        {q, k, v, TensorValue(), pastK, pastV}, "reference");
  auto masked = runNode(NodeCase("Attention", {}, 23, 3), {q, k, v, mask, pastK, pastV}, "reference");
  EXPECT_TRUE(closeTensors(firstOutput(causal), firstOutput(masked), 1e-6, 1e-7));
  TensorValue presentKey = firstOutput(causal, 1);
  ASSERT_EQ(presentKey.dims(), (Dims{1, 2, 5, 4}));
  // The present cache is the past followed by the new keys.
  EXPECT_EQ(presentKey.data<float>()[0], pastK.data<float>()[0]);
  EXPECT_EQ(presentKey.data<float>()[2 * 4], k.data<float>()[0]);
}

TEST(ExecAttention, RejectsHeadCountsThatDoNotGroup) {
  TensorValue q = randomTensor(DataType::Float, {1, 3, 2, 4}, 12);
  TensorValue k = randomTensor(DataType::Float, {1, 2, 2, 4}, 13);
  auto result = runNode(NodeCase("Attention", {}, 23), {q, k, k}, "reference");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().toString().find("multiple of kv heads"), std::string::npos)
      << result.error().toString();
}

TEST(ExecEinsum, BatchMatmulMatchesLoops) {
  TensorValue a = randomTensor(DataType::Float, {2, 3, 4}, 14);
  TensorValue b = randomTensor(DataType::Float, {2, 4, 5}, 15);
  TensorValue y = firstOutput(runNode(
      NodeCase("Einsum", {Attribute::ofString("equation", "bij,bjk->bik")}, 12), {a, b}, "reference"));
  ASSERT_EQ(y.dims(), (Dims{2, 3, 5}));
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t kk = 0; kk < 5; ++kk) {
        float acc = 0;
        for (int64_t j = 0; j < 4; ++j)
          acc += a.data<float>()[(n * 3 + i) * 4 + j] * b.data<float>()[(n * 4 + j) * 5 + kk];
        EXPECT_NEAR(y.data<float>()[(n * 3 + i) * 5 + kk], acc, 1e-5);
      }
}

TEST(ExecRotaryEmbedding, ZeroAngleIsIdentityAndQuarterTurnSwapsHalves) {
  TensorValue x = randomTensor(DataType::Float, {1, 1, 2, 4}, 16);
  TensorValue cosCache = TensorValue::fromVector<float>(DataType::Float, {2, 2}, {1, 1, 0, 0});
  TensorValue sinCache = TensorValue::fromVector<float>(DataType::Float, {2, 2}, {0, 0, 1, 1});
  TensorValue positions = TensorValue::fromVector<int64_t>(DataType::Int64, {1, 2}, {0, 1});
  TensorValue y = firstOutput(
      runNode(NodeCase("RotaryEmbedding", {}, 23), {x, cosCache, sinCache, positions}, "reference"));
  const float* in = x.data<float>();
  const float* out = y.data<float>();
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[i], in[i]);  // position 0: angle 0
  // Position 1: angle pi/2 maps (x1, x2) to (-x2, x1).
  EXPECT_FLOAT_EQ(out[4], -in[6]);
  EXPECT_FLOAT_EQ(out[5], -in[7]);
  EXPECT_FLOAT_EQ(out[6], in[4]);
  EXPECT_FLOAT_EQ(out[7], in[5]);
}

}  // namespace
}  // namespace onyx::exec
