// A KV-cache decoder step as ONNX Runtime's tools leave it (#22): past_key/past_value in, present_key/
// present_value out through com.microsoft MultiHeadAttention. The present edges read `past_seq + seq`, the
// two symbols bind separately, and the step runs with an empty past (past_seq = 0) and with a long one.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/executor.h"
#include "shapes_test_support.h"

namespace onyx {
namespace {

using testing::parseOrFail;
using testing::shapeNamed;

const char* kDecoderStep = R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
decoder (float[1, seq, 8] x, float[1, 2, past_seq, 4] past_key, float[1, 2, past_seq, 4] past_value)
    => (float out, float present_key, float present_value) {
  out, present_key, present_value = com.microsoft.MultiHeadAttention <num_heads = 2, unidirectional = 1>
      (x, x, x, , , , past_key, past_value)
})";

TEST(KvCacheDecoder, PresentEdgesReadPastPlusSequenceAndBindSeparately) {
  auto model = parseOrFail(kDecoderStep);
  ASSERT_TRUE(model);
  ShapeInference free = inferShapes(*model);
  EXPECT_EQ(testing::errorsOf(free), "");
  EXPECT_EQ(shapeNamed(free, "present_key"), "[1, 2, past_seq + seq, 4]");
  EXPECT_EQ(shapeNamed(free, "present_value"), "[1, 2, past_seq + seq, 4]");
  EXPECT_EQ(shapeNamed(free, "out"), "[1, seq, 8]");

  ShapeInferenceOptions pastOnly;
  pastOnly.bindings = {{"past_seq", 50}};
  EXPECT_EQ(shapeNamed(inferShapes(*model, pastOnly), "present_key"), "[1, 2, seq + 50, 4]");
  ShapeInferenceOptions both;
  both.bindings = {{"past_seq", 50}, {"seq", 1}};
  EXPECT_EQ(shapeNamed(inferShapes(*model, both), "present_key"), "[1, 2, 51, 4]");
  ShapeInferenceOptions empty;
  empty.bindings = {{"past_seq", 0}, {"seq", 3}};
  EXPECT_EQ(shapeNamed(inferShapes(*model, empty), "present_key"), "[1, 2, 3, 4]");
}

struct Step {
  exec::TensorValue out, presentKey, presentValue;
};

Step runStep(Model& model, int64_t past, int64_t seq) {
  auto executor = exec::Executor::create(model);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor.ok()) return {};
  exec::TensorValue x = exec::TensorValue::allocate(DataType::Float, {1, seq, 8});
  exec::TensorValue pastKey = exec::TensorValue::allocate(DataType::Float, {1, 2, past, 4});
  exec::TensorValue pastValue = exec::TensorValue::allocate(DataType::Float, {1, 2, past, 4});
  for (int64_t i = 0; i < seq * 8; ++i) x.data<float>()[i] = std::sin(0.37f * float(i + 1));
  for (int64_t i = 0; i < 2 * past * 4; ++i) {
    pastKey.data<float>()[i] = std::cos(0.11f * float(i));
    pastValue.data<float>()[i] = 0.01f * float(i % 97);
  }
  auto outputs = (*executor)->run({{"x", x}, {"past_key", pastKey}, {"past_value", pastValue}});
  EXPECT_TRUE(outputs.ok()) << outputs.error().toString();
  if (!outputs.ok()) return {};
  return {std::get<exec::TensorValue>((*outputs)[0]), std::get<exec::TensorValue>((*outputs)[1]),
          std::get<exec::TensorValue>((*outputs)[2])};
}

TEST(KvCacheDecoder, RunsWithAnEmptyPastAndWithALongOne) {
  auto model = parseOrFail(kDecoderStep);
  ASSERT_TRUE(model);
  // past_seq = 0: empty past tensors. Unidirectional, the first position attends to itself only, so its
  // output is its own value (x, as value and key are x too), head by head.
  Step first = runStep(*model, 0, 3);
  ASSERT_EQ(first.presentKey.dims(), (exec::Dims{1, 2, 3, 4}));
  ASSERT_EQ(first.out.dims(), (exec::Dims{1, 3, 8}));
  for (int64_t c = 0; c < 8; ++c) EXPECT_NEAR(first.out.data<float>()[c], std::sin(0.37f * float(c + 1)), 1e-6f);
  // The present key holds the new keys split into heads: head h, position s, channel d is x[s, h * 4 + d].
  EXPECT_FLOAT_EQ(first.presentKey.data<float>()[(1 * 3 + 2) * 4 + 1], std::sin(0.37f * float(2 * 8 + 1 * 4 + 1 + 1)));

  // A long past: present = past followed by the new position, per head.
  const int64_t past = 300;
  Step next = runStep(*model, past, 1);
  ASSERT_EQ(next.presentKey.dims(), (exec::Dims{1, 2, past + 1, 4}));
  ASSERT_EQ(next.presentValue.dims(), (exec::Dims{1, 2, past + 1, 4}));
  for (int64_t h = 0; h < 2; ++h) {
    for (int64_t t = 0; t < past; t += 37)
      for (int64_t d = 0; d < 4; ++d)
        EXPECT_FLOAT_EQ(next.presentKey.data<float>()[(h * (past + 1) + t) * 4 + d],
                        std::cos(0.11f * float((h * past + t) * 4 + d)));
    for (int64_t d = 0; d < 4; ++d)
      EXPECT_FLOAT_EQ(next.presentValue.data<float>()[(h * (past + 1) + past) * 4 + d],
                      std::sin(0.37f * float(h * 4 + d + 1)));
  }
  // The new position attends over all 301 keys: its output is a convex mix of the values, inside their range.
  for (int64_t c = 0; c < 8; ++c) {
    const float v = next.out.data<float>()[c];
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
}

}  // namespace
}  // namespace onyx
