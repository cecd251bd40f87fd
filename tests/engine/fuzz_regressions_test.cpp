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

}  // namespace
}  // namespace onyx
