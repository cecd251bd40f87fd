// Inputs the fuzz targets (tests/fuzz, packaging/fuzz.sh) found, each reduced to what it exercised.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "exec/executor.h"
#include "ir/type.h"
#include "onnx/onnx_io.h"
#include "shapes/shape_inference.h"

namespace onyx {
namespace {

// fuzz_shapes: a Reshape whose target dims multiply past int64 overflowed (UBSan: signed overflow in
// staticElementCount); such a shape has no element count.
TEST(FuzzRegressions, ElementCountPastInt64IsUnknown) {
  EXPECT_EQ(staticElementCount({Dim(3), Dim(int64_t(4611686018427387907))}), std::nullopt);
  EXPECT_EQ(staticElementCount({Dim(-1), Dim(int64_t(4611686018427387907)), Dim(4)}), std::nullopt);
  EXPECT_EQ(staticElementCount({Dim(3), Dim(5)}), 15);
}

TEST(FuzzRegressions, ReshapeToDimsPastInt64IsNotAWrappedCount) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x) => (float[4611686018427387907, 3] y) {
  s = Constant <value = int64[2] {4611686018427387907, 3}> ()
  y = Reshape(x, s)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ShapeInference inference = inferShapes(**model);
  for (const Diagnostic& diagnostic : inference.diagnostics)
    EXPECT_EQ(diagnostic.message.find("-4611686018427387895"), std::string::npos) << diagnostic.message;
}

// fuzz_run: Pow of an int64 base to a float exponent converted an infinite (and a NaN) result to int64
// (UBSan: inf is outside the range of long). Past int64 saturates; NaN is 0.
TEST(FuzzRegressions, IntegerPowPastInt64Saturates) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64[3] x, float[3] e) => (int64[3] z) {
  z = Pow(x, e)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = exec::Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  exec::TensorValue x = exec::TensorValue::allocate(DataType::Int64, {3});
  exec::TensorValue e = exec::TensorValue::allocate(DataType::Float, {3});
  const int64_t bases[] = {std::numeric_limits<int64_t>::max(), -3, 9};
  const float exponents[] = {2.0f, 0.5f, 0.5f};
  for (int i = 0; i < 3; ++i) {
    x.data<int64_t>()[i] = bases[i];
    e.data<float>()[i] = exponents[i];
  }
  auto outputs = (*executor)->run({{"x", x}, {"e", e}});
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  const auto& z = std::get<exec::TensorValue>((*outputs)[0]);
  EXPECT_EQ(z.data<int64_t>()[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(z.data<int64_t>()[1], 0);
  EXPECT_EQ(z.data<int64_t>()[2], 3);
}

// fuzz_run (UBSan: nan is outside the range of unsigned char): QLinearMatMul with a NaN scale rounded and
// clamped a NaN, then converted it to uint8. Quantized outputs take NaN as 0 (util/clamp_or_zero.h), and a
// zero output scale saturates.
TEST(FuzzRegressions, QuantizedNanIsZeroAndInfinitySaturates) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (uint8[2, 2] a, float sa, uint8 za, uint8[2, 2] b, float sb, uint8 zb, float sy, uint8 zy) => (uint8[2, 2] y) {
  y = QLinearMatMul(a, sa, za, b, sb, zb, sy, zy)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = exec::Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto scalar = [](DataType dtype, double value) {
    exec::TensorValue t = exec::TensorValue::allocate(dtype, {});
    if (dtype == DataType::Float)
      t.data<float>()[0] = float(value);
    else
      t.data<uint8_t>()[0] = uint8_t(value);
    return t;
  };
  exec::TensorValue a = exec::TensorValue::allocate(DataType::Uint8, {2, 2});
  exec::TensorValue b = exec::TensorValue::allocate(DataType::Uint8, {2, 2});
  for (int i = 0; i < 4; ++i) a.data<uint8_t>()[i] = b.data<uint8_t>()[i] = uint8_t(i + 1);
  auto run = [&](float sa, float sy) {
    return (*executor)->run({{"a", a}, {"sa", scalar(DataType::Float, sa)}, {"za", scalar(DataType::Uint8, 0)},
                             {"b", b}, {"sb", scalar(DataType::Float, 1.0)}, {"zb", scalar(DataType::Uint8, 0)},
                             {"sy", scalar(DataType::Float, sy)}, {"zy", scalar(DataType::Uint8, 0)}});
  };
  auto nan = run(std::numeric_limits<float>::quiet_NaN(), 1.0f);
  ASSERT_TRUE(nan.ok()) << nan.error().toString();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(std::get<exec::TensorValue>((*nan)[0]).data<uint8_t>()[i], 0);
  auto infinite = run(1.0f, 0.0f);  // positive products over a zero scale: past 255
  ASSERT_TRUE(infinite.ok()) << infinite.error().toString();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(std::get<exec::TensorValue>((*infinite)[0]).data<uint8_t>()[i], 255);
}

// fuzz_run (UBSan: signed integer overflow): Reshape multiplied its target dims without a check. A product
// past 2^63 is an error naming the node's shape input.
TEST(FuzzRegressions, ReshapeTargetPastInt64IsAnError) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x, int64[3] s) => (float[?] y) {
  y = Reshape(x, s)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = exec::Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  exec::TensorValue x = exec::TensorValue::allocate(DataType::Float, {6});
  exec::TensorValue shape = exec::TensorValue::allocate(DataType::Int64, {3});
  const int64_t dims[] = {1932396083862831105, 6361088, -1};
  for (int i = 0; i < 3; ++i) shape.data<int64_t>()[i] = dims[i];
  auto outputs = (*executor)->run({{"x", x}, {"s", shape}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.error().toString().find("multiply past 2^63"), std::string::npos) << outputs.error().toString();
}

// fuzz_run (ASan: heap-buffer-overflow): an RNN read sequence_lens past its end when it held fewer lengths
// than the batch has rows. It is an error naming the input.
TEST(FuzzRegressions, ShortSequenceLensIsAnError) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 4] x, float[1, 5, 4] w, float[1, 5, 5] r, int32[1] lens) => (float[2, 1, 3, 5] y) {
  y = RNN <hidden_size = 5> (x, w, r, , lens)
})");
  // The lengths as a graph input are checked against the batch before the run; as a constant (what the
  // fuzzer made), by the kernel. Both name the input.
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = exec::Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  exec::TensorValue x = exec::TensorValue::allocate(DataType::Float, {2, 3, 4});
  exec::TensorValue w = exec::TensorValue::allocate(DataType::Float, {1, 5, 4});
  exec::TensorValue r = exec::TensorValue::allocate(DataType::Float, {1, 5, 5});
  exec::TensorValue lens = exec::TensorValue::allocate(DataType::Int32, {1});
  lens.data<int32_t>()[0] = 2;
  auto outputs = (*executor)->run({{"x", x}, {"w", w}, {"r", r}, {"lens", lens}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.error().toString().find("one length per batch row"), std::string::npos)
      << outputs.error().toString();
}

// fuzz_run (UBSan: unsigned offset overflow): RMSNormalization took broadcast strides of a scale with more
// dims than the normalized ones before checking that it broadcasts. It is an error naming the scale.
TEST(FuzzRegressions, RmsNormScaleOfHigherRankIsAnError) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 23]>
g (float[2, 4] x, float[3, 1, 4] s) => (float[2, 4] y) {
  y = RMSNormalization <axis = -1> (x, s)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = exec::Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto outputs = (*executor)->run({{"x", exec::TensorValue::allocate(DataType::Float, {2, 4})},
                                   {"s", exec::TensorValue::allocate(DataType::Float, {3, 1, 4})}});
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.error().toString().find("does not broadcast to the normalized dims"), std::string::npos)
      << outputs.error().toString();
}

// fuzz_run (ASan: heap-buffer-overflow): ConcatFromSequence copied each part's rows as if it had the first
// part's shape, reading past a smaller one. Parts that differ off the concatenation axis are an error naming
// the part and the axis; parts that differ only along it still concatenate.
Expected<std::vector<exec::RunValue>> concatFromSequence(int64_t axis, int64_t newAxis, int64_t secondWidth) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] a, float[2, W] b) => (float[2, N] y) {
  s = SequenceConstruct(a, b)
  y = ConcatFromSequence <axis = )" + std::to_string(axis) + ", new_axis = " + std::to_string(newAxis) + R"(> (s)
})");
  if (!model.ok()) return model.error();
  auto executor = exec::Executor::create(**model);
  if (!executor.ok()) return executor.error();
  exec::TensorValue a = exec::TensorValue::allocate(DataType::Float, {2, 3});
  exec::TensorValue b = exec::TensorValue::allocate(DataType::Float, {2, secondWidth});
  for (int i = 0; i < 6; ++i) a.data<float>()[i] = float(i);
  for (int64_t i = 0; i < 2 * secondWidth; ++i) b.data<float>()[i] = 100.0f + float(i);
  return (*executor)->run({{"a", a}, {"b", b}});
}

TEST(FuzzRegressions, ConcatFromSequenceRefusesPartsOfDifferentShapes) {
  auto stacked = concatFromSequence(-1, 1, 4);
  ASSERT_FALSE(stacked.ok());
  EXPECT_NE(stacked.error().message.find("sequence tensor 1 has 4 along axis 1 where tensor 0 has 3"), std::string::npos)
      << stacked.error().toString();
  auto rows = concatFromSequence(0, 0, 4);
  ASSERT_FALSE(rows.ok()) << "axis 0 needs equal widths";
  auto columns = concatFromSequence(1, 0, 4);
  ASSERT_TRUE(columns.ok()) << columns.error().toString();
  const auto& y = std::get<exec::TensorValue>((*columns)[0]);
  ASSERT_EQ(y.dims(), (exec::Dims{2, 7}));
  EXPECT_EQ(y.data<float>()[3], 100.0f);
  EXPECT_EQ(y.data<float>()[7], 3.0f);
  EXPECT_EQ(y.data<float>()[13], 107.0f);
}

// fuzz_shapes (ASan: heap-buffer-overflow in dimSub): ConvTranspose with a kernel_shape shorter than the
// input's spatial axes read past the kernel's end. It is an error naming the counts.
TEST(FuzzRegressions, ConvTransposeKernelShapeOfTheWrongLengthIsAnError) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 2, 5, 5] x, float[2, 3, 3, 3] w) => (float y) {
  y = ConvTranspose <kernel_shape = [3]> (x, w)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ShapeInference inference = inferShapes(**model);
  const Diagnostic* error = inference.firstError();
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("kernel_shape has 1 entries but the input"), std::string::npos) << error->message;
  EXPECT_NE(error->message.find("has 2 spatial axes"), std::string::npos) << error->message;
}

}  // namespace
}  // namespace onyx
