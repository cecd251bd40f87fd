// Memory a hostile file could make a kernel misuse (session 19's audit of every kernel): empty tensors whose
// other dims are huge (a TopK row of [0, 2^40] sized the kernel's scratch, a Reshape of an empty tensor was never
// size-checked), string tensors copied as bytes (shared, then double-freed buffers), bool bytes other than 0
// or 1, and inputs whose dims the kernel trusted to agree (MultiHeadAttention's value batch, Scan's output
// axes, Gradient's names).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "fuzz_regressions_util.h"
#include "onnx/onnx_io.h"

namespace onyx::exec {
namespace {

using fuzz_regressions::f32;
using fuzz_regressions::i64;
using fuzz_regressions::says;
using testing::NodeCase;
using testing::runError;
using testing::runNode;

Expected<std::vector<RunValue>> runText(const std::string& text, const NamedValues& inputs) {
  auto model = parseModelText(text);
  if (!model) return model.error();
  auto executor = Executor::create(**model);
  if (!executor) return executor.error();
  return (*executor)->run(inputs);
}

std::string errorOf(const Expected<std::vector<RunValue>>& ran) { return ran ? std::string() : ran.error().toString(); }

constexpr int64_t kHuge = int64_t(1) << 40;

TEST(FuzzRegressionsExtents, EmptyTensorsWithHugeDimsAreRefused) {
  // A graph input: refused before any kernel sizes scratch from its other dims.
  const TensorValue empty = TensorValue::allocate(DataType::Float, {0, kHuge});
  EXPECT_TRUE(says(runError({"TopK", {}, 11, 2}, {empty, i64({1}, {1})}), "span 1099511627776 elements"));
  // A kernel's output that is a view of an empty tensor, never allocated: checked after the node.
  const std::string reshape = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[0] x, int64[2] shape) => (float[A, B] y) {
  y = Reshape(x, shape)
})";
  auto ran = runText(reshape, {{"x", TensorValue::allocate(DataType::Float, {0})}, {"shape", i64({2}, {0, kHuge})}});
  EXPECT_TRUE(says(errorOf(ran), "Reshape output 0 asks for an empty tensor of [0, 1099511627776]"));
  auto fine = runText(reshape, {{"x", TensorValue::allocate(DataType::Float, {0})}, {"shape", i64({2}, {0, 4})}});
  EXPECT_TRUE(fine.ok()) << errorOf(fine);
  // Resize of an empty tensor by a scale of 1e12: its tap tables are sized from the output's dims.
  const NodeCase resize("Resize", {}, 13);
  EXPECT_TRUE(says(runError(resize, {TensorValue::allocate(DataType::Float, {0, 1}), TensorValue(),
                                     f32({2}, {1.0f, 1e12f})}),
                   "span 999999995904 elements"));
  // A window of 2^40 doubles is checked before the doubles are allocated.
  EXPECT_TRUE(says(runError({"HannWindow", {}, 17}, {i64({}, {kHuge})}), "window of size 1099511627776"));
}

TEST(FuzzRegressionsExtents, EmptyInitializersWithHugeDimsAreRefusedWhenPlanned) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1] x) => (float[1] y) <float[0, 1099511627776] w = {}> {
  y = Identity(x)
})";
  auto model = parseModelText(text);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = Executor::create(**model);
  ASSERT_FALSE(executor.ok());
  EXPECT_TRUE(says(executor.error().toString(), "initializer 'w' asks for an empty tensor"));
}

TEST(FuzzRegressionsExtents, StringTensorsAreCopiedAsStrings) {
  const std::string concat = R"(<ir_version: 8, opset_import: ["" : 17]>
g (string[2] a, string[1] b) => (string[3] y) {
  s = SequenceConstruct(a, b)
  y = ConcatFromSequence <axis = 0> (s)
})";
  // Strings past the small-string buffer, so a byte copy would share (then free twice) their heap buffers.
  const std::string longText(40, 'x');
  auto ran = runText(concat, {{"a", TensorValue::fromStrings({2}, {"first " + longText, "second"})},
                              {"b", TensorValue::fromStrings({1}, {"third " + longText})}});
  ASSERT_TRUE(ran.ok()) << errorOf(ran);
  const auto& joined = std::get<TensorValue>((*ran)[0]);
  ASSERT_EQ(joined.count(), 3);
  EXPECT_EQ(joined.data<std::string>()[0], "first " + longText);
  EXPECT_EQ(joined.data<std::string>()[2], "third " + longText);

  const std::string scan = R"(<ir_version: 8, opset_import: ["" : 16]>
g (string[3, 1] xs) => (string[3, 1] ys) {
  ys = Scan <num_scan_inputs = 1, body = b (string[1] x) => (string[1] y) { y = Identity(x) }> (xs)
})";
  auto scanned = runText(scan, {{"xs", TensorValue::fromStrings({3, 1}, {"a" + longText, "b" + longText, "c"})}});
  ASSERT_TRUE(scanned.ok()) << errorOf(scanned);
  const auto& ys = std::get<TensorValue>((*scanned)[0]);
  EXPECT_EQ(ys.data<std::string>()[1], "b" + longText);
  EXPECT_EQ(ys.data<std::string>()[2], "c");
}

TEST(FuzzRegressionsExtents, ScanOutputAxesAreCheckedAgainstTheOutputRank) {
  const std::string scan = R"(<ir_version: 8, opset_import: ["" : 16]>
g (float[3, 2] xs) => (float[3, 2] ys) {
  ys = Scan <num_scan_inputs = 1, scan_output_axes = [5], body = b (float[2] x) => (float[2] y) { y = Relu(x) }> (xs)
})";
  auto ran = runText(scan, {{"xs", f32({3, 2}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_TRUE(says(errorOf(ran), "scan_output_axes entry 5 is out of range for a scan output of rank 1"));
}

TEST(FuzzRegressionsExtents, BoolsHoldOnlyZeroOrOne) {
  // BitCast of the byte 2 to bool is true, so Not gives false (a bool loaded from the byte 2 is undefined).
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 26]>
g (uint8[3] x) => (bool[3] y) {
  b = BitCast <to = 9> (x)
  y = Not(b)
})";
  auto ran = runText(text, {{"x", TensorValue::fromVector<uint8_t>(DataType::Uint8, {3}, {2, 0, 1})}});
  ASSERT_TRUE(ran.ok()) << errorOf(ran);
  const auto& y = std::get<TensorValue>((*ran)[0]);
  EXPECT_EQ(y.data<uint8_t>()[0], 0);
  EXPECT_EQ(y.data<uint8_t>()[1], 1);
  EXPECT_EQ(y.data<uint8_t>()[2], 0);
}

TEST(FuzzRegressionsExtents, MultiHeadAttentionValueBatchMustMatchTheQuery) {
  NodeCase mha("MultiHeadAttention", {Attribute::ofInt("num_heads", 1)});
  mha.domain = "com.microsoft";
  const TensorValue query = f32({2, 1, 4}, std::vector<float>(8, 0.5f)), key = f32({2, 3, 4}, std::vector<float>(24, 0.5f));
  EXPECT_TRUE(says(runError(mha, {query, key, f32({1, 3, 4}, std::vector<float>(12, 0.5f))}), "do not fit query"));
  EXPECT_EQ(runError(mha, {query, key, f32({2, 3, 4}, std::vector<float>(24, 0.5f))}), "");
}

// A model-local function is compiled as one fused element-wise body when it can be: a Clip whose input is
// omitted (its bounds may be, its input may not) was taken, and its input register was -1 (read before a vector).
TEST(FuzzRegressionsExtents, ClipWithoutItsInputIsNotFused) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[2] x, float m) => (float[2] y) {
  y = local.Bounded(x, m)
}
<domain: "local", opset_import: ["" : 17]>
Bounded (a, b) => (c) { c = Clip("", b) })";
  auto ran = runText(text, {{"x", f32({2}, {1, 2})}, {"m", f32({}, {0.5f})}});
  EXPECT_TRUE(says(errorOf(ran), "Clip")) << errorOf(ran);
}

// Where's shape function picked element 0 of an empty tracked value (a bool [0] condition broadcast with [1]).
TEST(FuzzRegressionsExtents, WhereOfAnEmptyTrackedValueIsNotTracked) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g () => (int64[0] y) <bool[0] c = {}, int64[1] x = {1}, int64[1] z = {2}> {
  y = Where(c, x, z)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto ran = (*executor)->run({});
  ASSERT_TRUE(ran.ok()) << errorOf(ran);
  EXPECT_EQ(std::get<TensorValue>((*ran)[0]).count(), 0);
}

// A Transpose folded into a MatMul with a 1-D B: A's batch folds into M, so A must be read contiguous (read
// permuted, its strides outnumbered its dims and oneDNN's desc asked for 2^64 strides: std::length_error).
TEST(FuzzRegressionsExtents, TransposedAByAVectorMultiplies) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 4] x) => (float[2, 4] y) <float[3] w = {1, 2, 3}> {
  t = Transpose <perm = [0, 2, 1]> (x)
  y = MatMul(t, w)
})";
  std::vector<float> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i);
  auto ran = runText(text, {{"x", f32({2, 3, 4}, values)}});
  ASSERT_TRUE(ran.ok()) << errorOf(ran);
  const auto& y = std::get<TensorValue>((*ran)[0]);
  ASSERT_EQ(y.count(), 8);
  // y[b, i] = sum_j x[b, j, i] * w[j]
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 4; ++i) {
      float expected = 0;
      for (int j = 0; j < 3; ++j) expected += values[size_t(b * 12 + j * 4 + i)] * float(j + 1);
      EXPECT_FLOAT_EQ(y.data<float>()[b * 4 + i], expected) << b << ", " << i;
    }
}

// float16 MatMul over K = 0 is zeros; the panel product wrote no row, leaving the arena's old bytes.
TEST(FuzzRegressionsExtents, HalfMatMulOverAnEmptyInnerDimIsZeros) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float16[3, 0] a) => (float16[3, 4] y) <float16[0, 4] b = {}> {
  y = MatMul(a, b)
})";
  auto ran = runText(text, {{"a", TensorValue::allocate(DataType::Float16, {3, 0})}});
  ASSERT_TRUE(ran.ok()) << errorOf(ran);
  const auto& y = std::get<TensorValue>((*ran)[0]);
  ASSERT_EQ(y.count(), 12);
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(y.data<uint16_t>()[i], 0) << i;
}

}  // namespace
}  // namespace onyx::exec
