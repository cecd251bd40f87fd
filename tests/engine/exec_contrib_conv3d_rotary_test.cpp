// Two com.microsoft cases ONNX Runtime's CPU kernels cannot be the oracle for, checked against compositions
// of Onyx's own kernels instead (#22): FusedConv on NCDHW volumes against Conv + Add + activation on the
// reference kernels, and Attention with do_rotary (ONNX Runtime implements it only on CUDA) against MatMul,
// Split, RotaryEmbedding on Q and K with the angles the spec's kernels use, and MultiHeadAttention.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "shapes_test_support.h"

namespace onyx::exec {
namespace {

using testing::randomTensor;

std::vector<TensorValue> runModel(const Model& model, const NamedValues& inputs, const std::string& variant = {}) {
  ExecutorOptions options;
  options.kernelVariant = variant;
  auto executor = Executor::create(model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor.ok()) return {};
  auto outputs = (*executor)->run(inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.error().toString();
  std::vector<TensorValue> tensors;
  if (outputs.ok())
    for (const RunValue& value : *outputs) tensors.push_back(std::get<TensorValue>(value).clone());
  return tensors;
}

void expectClose(const TensorValue& actual, const TensorValue& expected, const std::string& what, Tolerance tolerance = {1e-5, 1e-5}) {
  ASSERT_EQ(actual.dims(), expected.dims()) << what;
  Comparison c = compareValues(actual, expected, tolerance);
  EXPECT_TRUE(c.ok) << what << ": " << c.reason;
}

struct Conv3dCase {
  std::string attributes;  // Conv's window attributes, shared by both graphs
  std::string activation;  // FusedConv's activation attributes
  std::string composedActivation;
  Dims x, w, out;
  bool residual;
};

void checkFusedConv3d(const Conv3dCase& c) {
  auto dimsText = [](const Dims& d) {
    std::string s;
    for (int64_t v : d) s += (s.empty() ? "" : ", ") + std::to_string(v);
    return s;
  };
  const std::string header = "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n";
  const std::string signature = "(float[" + dimsText(c.x) + "] x, float[" + dimsText(c.w) + "] w, float[" +
                                std::to_string(c.w[0]) + "] b, float[" + dimsText(c.out) + "] z) => (float y)";
  const std::string zInput = c.residual ? ", z" : "";
  auto fused = onyx::testing::parseOrFail(header + "fused " + signature + " {\n  y = com.microsoft.FusedConv <" + c.attributes +
                                    ", " + c.activation + "> (x, w, b" + zInput + ")\n}");
  auto composed = onyx::testing::parseOrFail(header + "composed " + signature + " {\n  conv = Conv <" + c.attributes +
                                       "> (x, w, b)\n  sum = " + (c.residual ? "Add(conv, z)" : "Identity(conv)") +
                                       "\n  y = " + c.composedActivation + "(sum)\n}");
  ASSERT_TRUE(fused && composed);
  ShapeInference shapes = inferShapes(*fused);
  EXPECT_EQ(onyx::testing::errorsOf(shapes), "");
  EXPECT_EQ(onyx::testing::shapeNamed(shapes, "y"), "[" + dimsText(c.out) + "]");
  NamedValues inputs = {{"x", randomTensor(DataType::Float, c.x, 11)},
                        {"w", randomTensor(DataType::Float, c.w, 12, -0.5f, 0.5f)},
                        {"b", randomTensor(DataType::Float, {c.w[0]}, 13)},
                        {"z", randomTensor(DataType::Float, c.out, 14)}};
  auto got = runModel(*fused, inputs);
  auto want = runModel(*composed, inputs, "reference");
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  expectClose(got[0], want[0], "FusedConv " + c.attributes);
}

TEST(ContribFusedConv3d, GroupedStridedDilatedWithResidualMatchesConvAddLeakyRelu) {
  // D: 5 + 2 pads - 3 + 1 = 5; H: (6 - 2) / 2 + 1 = 3; W: 7 + 2 pads - (2 * 2 + 1) + 1 = 5.
  checkFusedConv3d({"group = 2, strides = [1, 2, 1], pads = [1, 0, 1, 1, 0, 1], dilations = [1, 1, 2]",
                    "activation = \"LeakyRelu\", activation_params = [0.2]", "LeakyRelu <alpha = 0.2>",
                    {2, 4, 5, 6, 7}, {6, 2, 3, 2, 3}, {2, 6, 5, 3, 5}, true});
}

TEST(ContribFusedConv3d, SameUpperPaddingWithReluMatchesConvRelu) {
  // SAME_UPPER, stride 2: ceil(4 / 2), ceil(5 / 2), ceil(6 / 2).
  checkFusedConv3d({"auto_pad = \"SAME_UPPER\", strides = [2, 2, 2]", "activation = \"Relu\"", "Relu",
                    {1, 3, 4, 5, 6}, {4, 3, 3, 3, 3}, {1, 4, 2, 3, 3}, false});
}

TEST(ContribFusedConv3d, RejectsRankSixWithAClearError) {
  auto model = onyx::testing::parseOrFail(R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[1, 1, 2, 2, 2, 2] x, float[1, 1, 1, 1, 1, 1] w) => (float y) {
  y = com.microsoft.FusedConv <activation = "Relu"> (x, w)
})");
  ASSERT_TRUE(model);
  auto executor = Executor::create(*model, ExecutorOptions{});
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto out = (*executor)->run({{"x", TensorValue::allocate(DataType::Float, {1, 1, 2, 2, 2, 2})},
                               {"w", TensorValue::allocate(DataType::Float, {1, 1, 1, 1, 1, 1})}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().toString().find("FusedConv"), std::string::npos) << out.error().toString();
  EXPECT_NE(out.error().toString().find("3-D"), std::string::npos) << out.error().toString();
}

// Attention <do_rotary = 1> against the composition: x W + bias split into Q, K, V; Q and K through
// RotaryEmbedding with caches cos/sin(p / 10000^(2i / rotary_dim)) at positions past + s; MultiHeadAttention
// with the past split into key and value. Outputs and the present (key then value) must agree.
void checkRotaryAttention(int64_t past, int64_t rotaryDim, bool causal) {
  constexpr int64_t batch = 2, seq = 3, hidden = 16, heads = 2, headSize = 8;
  const int64_t rotary = rotaryDim > 0 ? rotaryDim : headSize, half = rotary / 2, positions = past + seq;
  const std::string causalAttr = causal ? ", unidirectional = 1" : "";
  const std::string rotaryAttr = rotaryDim > 0 ? ", rotary_embedding_dim = " + std::to_string(rotaryDim) : "";
  const std::string header = "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n";
  auto fused = onyx::testing::parseOrFail(header + R"(
fused (float[2, 3, 16] x, float[16, 48] w, float[48] bias, float[2, 2, 2, P, 8] past) => (float y, float present) {
  y, present = com.microsoft.Attention <num_heads = 2, do_rotary = 1)" + causalAttr + rotaryAttr + R"(> (x, w, bias, , past)
})");
  auto composed = onyx::testing::parseOrFail(header + R"(
composed (float[2, 3, 16] x, float[16, 48] w, float[48] bias, float[2, 2, P, 8] past_key, float[2, 2, P, 8] past_value,
          int64[2, 3] position_ids, float[T, H] cos_cache, float[T, H] sin_cache) => (float y, float present_key, float present_value) {
  product = MatMul(x, w)
  qkv = Add(product, bias)
  splits = Constant <value = int64[3] {16, 16, 16}> ()
  q, k, v = Split <axis = 2> (qkv, splits)
  q_rotated = com.microsoft.RotaryEmbedding <num_heads = 2)" + rotaryAttr + R"(> (q, position_ids, cos_cache, sin_cache)
  k_rotated = com.microsoft.RotaryEmbedding <num_heads = 2)" + rotaryAttr + R"(> (k, position_ids, cos_cache, sin_cache)
  y, present_key, present_value = com.microsoft.MultiHeadAttention <num_heads = 2)" + causalAttr + R"(>
      (q_rotated, k_rotated, v, , , , past_key, past_value)
})");
  ASSERT_TRUE(fused && composed);

  TensorValue x = randomTensor(DataType::Float, {batch, seq, hidden}, 21);
  TensorValue w = randomTensor(DataType::Float, {hidden, 3 * hidden}, 22, -0.5f, 0.5f);
  TensorValue bias = randomTensor(DataType::Float, {3 * hidden}, 23);
  TensorValue pastBoth = randomTensor(DataType::Float, {2, batch, heads, past, headSize}, 24);
  TensorValue pastKey = TensorValue::allocate(DataType::Float, {batch, heads, past, headSize});
  TensorValue pastValue = TensorValue::allocate(DataType::Float, {batch, heads, past, headSize});
  const int64_t half_count = pastKey.count();
  for (int64_t i = 0; i < half_count; ++i) {
    pastKey.data<float>()[i] = pastBoth.data<float>()[i];
    pastValue.data<float>()[i] = pastBoth.data<float>()[half_count + i];
  }
  TensorValue ids = TensorValue::allocate(DataType::Int64, {batch, seq});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < seq; ++s) ids.data<int64_t>()[b * seq + s] = past + s;
  TensorValue cosCache = TensorValue::allocate(DataType::Float, {positions, half});
  TensorValue sinCache = TensorValue::allocate(DataType::Float, {positions, half});
  for (int64_t p = 0; p < positions; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const float angle = float(p) / std::pow(10000.0f, float(2 * i) / float(rotary));
      cosCache.data<float>()[p * half + i] = std::cos(angle);
      sinCache.data<float>()[p * half + i] = std::sin(angle);
    }

  auto got = runModel(*fused, {{"x", x}, {"w", w}, {"bias", bias}, {"past", pastBoth}});
  auto want = runModel(*composed, {{"x", x}, {"w", w}, {"bias", bias}, {"past_key", pastKey}, {"past_value", pastValue},
                                   {"position_ids", ids}, {"cos_cache", cosCache}, {"sin_cache", sinCache}});
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 3u);
  const std::string what = "past " + std::to_string(past) + ", rotary dim " + std::to_string(rotary);
  expectClose(got[0], want[0], "output, " + what);
  ASSERT_EQ(got[1].dims(), (Dims{2, batch, heads, positions, headSize}));
  const int64_t block = want[1].count();
  TensorValue presentKey = TensorValue::allocate(DataType::Float, want[1].dims());
  TensorValue presentValue = TensorValue::allocate(DataType::Float, want[2].dims());
  for (int64_t i = 0; i < block; ++i) {
    presentKey.data<float>()[i] = got[1].data<float>()[i];
    presentValue.data<float>()[i] = got[1].data<float>()[block + i];
  }
  expectClose(presentKey, want[1], "present key, " + what);
  expectClose(presentValue, want[2], "present value, " + what);
}

TEST(ContribAttentionRotary, FullHeadRotaryWithPastMatchesRotaryEmbeddingThenMultiHeadAttention) {
  checkRotaryAttention(5, 0, true);
}

TEST(ContribAttentionRotary, PartialRotaryDimWithoutPastMatchesTheComposition) {
  checkRotaryAttention(0, 4, false);
}

TEST(ContribAttentionRotary, RotaryChangesTheResultAndAnOddRotaryDimIsAnError) {
  const NamedValues inputs = {{"x", randomTensor(DataType::Float, {1, 2, 8}, 31)}, {"w", randomTensor(DataType::Float, {8, 24}, 32)}};
  auto model = onyx::testing::parseOrFail(R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[1, 2, 8] x, float[8, 24] w) => (float plain, float rotated) {
  plain = com.microsoft.Attention <num_heads = 2> (x, w)
  rotated = com.microsoft.Attention <num_heads = 2, do_rotary = 1> (x, w)
})");
  ASSERT_TRUE(model);
  auto outputs = runModel(*model, inputs);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_FALSE(compareValues(outputs[1], outputs[0], {1e-4, 1e-5}).ok) << "do_rotary left the output unchanged";

  auto odd = onyx::testing::parseOrFail(R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[1, 2, 8] x, float[8, 24] w) => (float odd) {
  odd = com.microsoft.Attention <num_heads = 2, do_rotary = 1, rotary_embedding_dim = 3> (x, w)
})");
  ASSERT_TRUE(odd);
  auto executor = Executor::create(*odd, ExecutorOptions{});
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto out = (*executor)->run(inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().toString().find("rotary_embedding_dim 3 must be even"), std::string::npos) << out.error().toString();
  EXPECT_NE(out.error().toString().find("Attention"), std::string::npos) << out.error().toString();
}

}  // namespace
}  // namespace onyx::exec
