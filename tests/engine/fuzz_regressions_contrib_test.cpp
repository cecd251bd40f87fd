// com.microsoft kernel inputs the fuzz targets (tests/fuzz, packaging/fuzz.sh) found read or written as a type
// other than their own: the contrib float helpers took every type but float and float16 for bfloat16, so a
// 1-byte tensor was read, or written, over twice its length. Each is now an error naming the input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "ops/contrib/contrib_kernels.h"

namespace onyx::exec {
namespace {

using testing::NodeCase;

Expected<std::vector<RunValue>> runMicrosoftNode(NodeCase c, const std::vector<TensorValue>& inputs,
                                                 const std::string& variant = "") {
  c.domain = "com.microsoft";
  return testing::runNode(c, inputs, variant);
}

// The run's error, or "" where it ran.
std::string microsoftError(const NodeCase& node, const std::vector<TensorValue>& inputs, const std::string& variant = "") {
  auto outputs = runMicrosoftNode(node, inputs, variant);
  return outputs ? std::string() : outputs.error().toString();
}

void expectError(const NodeCase& node, const std::vector<TensorValue>& inputs, const std::string& substring,
                 const std::string& variant = "") {
  const std::string error = microsoftError(node, inputs, variant);
  ASSERT_FALSE(error.empty()) << node.opType << " ran; expected an error with '" << substring << "'";
  EXPECT_NE(error.find(substring), std::string::npos) << error;
}

void expectRuns(const NodeCase& node, const std::vector<TensorValue>& inputs, const std::string& variant = "") {
  auto outputs = runMicrosoftNode(node, inputs, variant);
  EXPECT_TRUE(outputs.ok()) << node.opType << ": " << outputs.error().toString();
}

template <class T>
TensorValue filled(DataType dtype, Dims dims, T value) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return TensorValue::fromVector<T>(dtype, std::move(dims), std::vector<T>(size_t(count), value));
}
TensorValue floats(Dims dims, float value = 1.0f) { return filled<float>(DataType::Float, std::move(dims), value); }
TensorValue bytes(Dims dims, uint8_t value = 1) { return filled<uint8_t>(DataType::Uint8, std::move(dims), value); }
TensorValue int32s(Dims dims, int32_t value = 0) { return filled<int32_t>(DataType::Int32, std::move(dims), value); }

// The helpers themselves: a 1-byte tensor converts by value, and is never read or written as 16-bit floats.
TEST(FuzzRegressionsContrib, FloatHelpersNeverReinterpretOtherTypes) {
  const TensorValue u8 = TensorValue::fromVector<uint8_t>(DataType::Uint8, {3}, {1, 2, 250});
  EXPECT_EQ(contrib::floatsOf(u8), (std::vector<float>{1.0f, 2.0f, 250.0f}));
  std::vector<float> scratch;
  const float* data = contrib::floatData(u8, scratch);
  EXPECT_EQ(std::vector<float>(data, data + 3), (std::vector<float>{1.0f, 2.0f, 250.0f}));

  uint8_t buffer[4] = {7, 7, 7, 7};
  const float values[2] = {1.0f, 2.0f};
  contrib::fromFloats(DataType::Uint8, values, buffer, 2);  // wrote 4 bytes as two bfloat16
  for (uint8_t b : buffer) EXPECT_EQ(b, 7);
  float out[2] = {0.0f, 0.0f};
  contrib::toFloats(DataType::Int8, buffer, out, 2);  // read 4 bytes as two bfloat16
  EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]));
  contrib::toFloats(DataType::Float, values, out, 2);
  EXPECT_EQ(out[1], 2.0f);
}

// ASan: MatMulIntegerToFloat took its output type from a uint8 b_scale and wrote 2 bytes per element into it.
TEST(FuzzRegressionsContrib, MatMulIntegerToFloatScaleMustBeFloat) {
  const NodeCase node("MatMulIntegerToFloat");
  expectError(node, {bytes({2, 3}), bytes({3, 4}), floats({}), bytes({4})}, "b_scale must be float or float16");
  TensorValue halfScale = TensorValue::allocate(DataType::Float16, {4});
  expectError(node, {bytes({2, 3}), bytes({3, 4}), floats({}), halfScale}, "must have a_scale's type");
  auto y = runMicrosoftNode(node, {bytes({2, 3}), bytes({3, 4}), floats({}, 0.5f), floats({4}, 2.0f)});
  ASSERT_TRUE(y.ok()) << y.error().toString();
  const TensorValue& out = std::get<TensorValue>((*y)[0]);
  ASSERT_EQ(out.dtype(), DataType::Float);
  ASSERT_EQ(out.dims(), (Dims{2, 4}));
  EXPECT_FLOAT_EQ(out.data<float>()[0], 3.0f);  // 3 products of 1 * 1, times 0.5 * 2
}

// EmbedLayerNormalization read segment_ids and mask as int32 and gamma/beta as 16-bit floats, whatever they were.
TEST(FuzzRegressionsContrib, EmbedLayerNormChecksIdAndNormTypes) {
  const NodeCase node("EmbedLayerNormalization", {}, 17, 2);
  // input_ids, segment_ids, word, position and segment tables, gamma, beta, mask
  const std::vector<TensorValue> good{int32s({1, 2}), int32s({1, 2}), floats({3, 4}), floats({2, 4}), floats({2, 4}),
                                      floats({4}),    floats({4}, 0.0f), int32s({1, 2}, 1)};
  auto wrong = [&](size_t input, TensorValue value) {
    std::vector<TensorValue> inputs = good;
    inputs[input] = std::move(value);
    return inputs;
  };
  expectError(node, wrong(1, filled<int64_t>(DataType::Int64, {1, 2}, 0)), "segment_ids and mask must be int32");
  expectError(node, wrong(7, bytes({1, 2})), "segment_ids and mask must be int32");
  expectError(node, wrong(5, bytes({4})), "gamma and beta must be float");
  expectError(node, wrong(6, filled<int8_t>(DataType::Int8, {4}, 0)), "gamma and beta must be float");
  auto y = runMicrosoftNode(node, good);
  ASSERT_TRUE(y.ok()) << y.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*y)[1]).data<int32_t>()[0], 2) << "mask_index counts the nonzero mask values";
}

// com.microsoft QuantizeLinear read a uint8 y_scale as 16-bit floats; both Q and DQ indexed a zero point shorter
// than the scale by the scale's position.
TEST(FuzzRegressionsContrib, QuantizeLinearChecksScaleTypeAndZeroPointCount) {
  const NodeCase quantize("QuantizeLinear", {Attribute::ofInt("axis", 1)});
  expectError(quantize, {floats({2, 3}), bytes({})}, "y_scale must be float");
  expectError(quantize, {floats({2, 3}), floats({3}), bytes({2})}, "must hold one value or one per scale");
  expectError(quantize, {floats({2, 3}), floats({}), bytes({0})}, "must hold one value or one per scale");
  expectRuns(quantize, {floats({2, 3}), floats({3}), bytes({3}, 128)});
  expectRuns(quantize, {floats({2, 3}), floats({3}), bytes({}, 128)});

  const NodeCase dequantize("DequantizeLinear", {Attribute::ofInt("axis", 1)});
  expectError(dequantize, {bytes({2, 3}), floats({3}), bytes({2})}, "must hold one value or one per scale");
  expectRuns(dequantize, {bytes({2, 3}), floats({3}), bytes({3})});
}

// RotaryEmbedding checked cos_cache's type only and read a uint8 sin_cache as 16-bit floats.
TEST(FuzzRegressionsContrib, RotaryEmbeddingSinCacheMustHaveCosCacheType) {
  const NodeCase node("RotaryEmbedding", {Attribute::ofInt("num_heads", 1)});
  const TensorValue positions = TensorValue::fromVector<int64_t>(DataType::Int64, {1, 2}, {0, 1});
  expectError(node, {floats({1, 2, 4}), positions, floats({2, 2}), bytes({2, 2})}, "sin_cache must have cos_cache's type");
  // cos 1, sin 0: every position turns by nothing.
  auto y = runMicrosoftNode(node, {floats({1, 2, 4}, 3.0f), positions, floats({2, 2}, 1.0f), floats({2, 2}, 0.0f)});
  ASSERT_TRUE(y.ok()) << y.error().toString();
  EXPECT_FLOAT_EQ(std::get<TensorValue>((*y)[0]).data<float>()[7], 3.0f);
}

// GroupQueryAttention with do_rotary read uint8 caches as 16-bit floats, and read a past_value shorter than
// past_key with past_key's length.
TEST(FuzzRegressionsContrib, GroupQueryAttentionChecksCachesAndPastValue) {
  const NodeCase rotary("GroupQueryAttention",
                        {Attribute::ofInt("num_heads", 1), Attribute::ofInt("kv_num_heads", 1), Attribute::ofInt("do_rotary", 1)}, 17, 3);
  // query, key, value, past_key, past_value, seqlens_k, total_sequence_length, cos_cache, sin_cache
  auto inputs = [&](TensorValue cos, TensorValue sin) {
    return std::vector<TensorValue>{floats({1, 1, 4}), floats({1, 1, 4}), floats({1, 1, 4}), TensorValue(), TensorValue(),
                                    int32s({1}, 0),    int32s({}, 1),     std::move(cos),     std::move(sin)};
  };
  expectError(rotary, inputs(floats({2, 2}), bytes({2, 2})), "cos_cache and sin_cache must have the query's type");
  expectError(rotary, inputs(bytes({2, 2}), floats({2, 2})), "cos_cache and sin_cache must have the query's type");
  expectRuns(rotary, inputs(floats({2, 2}, 1.0f), floats({2, 2}, 0.0f)));

  const NodeCase plain("GroupQueryAttention", {Attribute::ofInt("num_heads", 1), Attribute::ofInt("kv_num_heads", 1)}, 17, 3);
  auto withPast = [&](Dims pastValue) {
    return std::vector<TensorValue>{floats({1, 1, 4}), floats({1, 1, 4}), floats({1, 1, 4}), floats({1, 1, 3, 4}),
                                    floats(std::move(pastValue)), int32s({1}, 3), int32s({}, 4)};
  };
  expectError(plain, withPast({1, 1, 1, 4}), "must have past_key's dims");
  expectRuns(plain, withPast({1, 1, 3, 4}));
}

// MatMulNBits checked the bias' count only and read a uint8 bias as 16-bit floats, in both of its kernels.
TEST(FuzzRegressionsContrib, MatMulNBitsBiasMustHaveTheInputType) {
  const NodeCase node("MatMulNBits", {Attribute::ofInt("K", 16), Attribute::ofInt("N", 2), Attribute::ofInt("bits", 4),
                                      Attribute::ofInt("block_size", 16)});
  // A, B (N x blocks x 8 bytes), scales, zero_points, g_idx, bias
  auto inputs = [&](TensorValue bias) {
    return std::vector<TensorValue>{floats({1, 16}), bytes({2, 1, 8}, 0x88), floats({2}), TensorValue(), TensorValue(), std::move(bias)};
  };
  for (const char* variant : {"", "reference"}) {
    SCOPED_TRACE(std::string("variant '") + variant + "'");
    expectError(node, inputs(bytes({2})), "must have A's type", variant);
    auto y = runMicrosoftNode(node, inputs(floats({2}, 1.5f)), variant);
    ASSERT_TRUE(y.ok()) << y.error().toString();
    // Every code is 8, the default zero point: the product is 0, plus the bias.
    EXPECT_FLOAT_EQ(std::get<TensorValue>((*y)[0]).data<float>()[1], 1.5f);
  }
}

}  // namespace
}  // namespace onyx::exec
