// Float8 / float4 / 4- and 2-bit integer conversions (edge values: NaN, infinities, saturation, subnormals,
// ties to even, negative zero) and the Cast, BitCast, DynamicQuantizeLinear and ConvInteger kernels.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/narrow_types.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

struct EncodeCase {
  DataType dtype;
  double value;
  bool saturate;
  int expected;
};

TEST(NarrowTypes, EncodesEdgeValues) {
  const double inf = INFINITY, nan = NAN;
  const EncodeCase cases[] = {
      {DataType::Float8E4M3FN, 1.0, true, 0x38},
      {DataType::Float8E4M3FN, 448.0, true, 0x7e},
      {DataType::Float8E4M3FN, 1e6, true, 0x7e},
      {DataType::Float8E4M3FN, 1e6, false, 0x7f},
      {DataType::Float8E4M3FN, -inf, true, 0xfe},
      {DataType::Float8E4M3FN, -inf, false, 0xff},
      {DataType::Float8E4M3FN, nan, true, 0x7f},
      {DataType::Float8E4M3FN, std::ldexp(1.0, -9), true, 0x01},       // smallest subnormal
      {DataType::Float8E4M3FN, std::ldexp(1.0, -10), true, 0x00},      // tie rounds to even (zero)
      {DataType::Float8E4M3FN, 3 * std::ldexp(1.0, -10), true, 0x02},  // tie rounds to even (2)
      {DataType::Float8E4M3FN, -0.0, true, 0x80},
      {DataType::Float8E4M3FN, -1e-7, true, 0x80},
      {DataType::Float8E4M3FNUZ, 1.0, true, 0x40},
      {DataType::Float8E4M3FNUZ, 240.0, true, 0x7f},
      {DataType::Float8E4M3FNUZ, 1e6, false, 0x80},
      {DataType::Float8E4M3FNUZ, -0.0, true, 0x00},
      {DataType::Float8E4M3FNUZ, nan, true, 0x80},
      {DataType::Float8E5M2, 1.0, true, 0x3c},
      {DataType::Float8E5M2, 57344.0, true, 0x7b},
      {DataType::Float8E5M2, inf, true, 0x7b},
      {DataType::Float8E5M2, inf, false, 0x7c},
      {DataType::Float8E5M2, -1e6, false, 0xfc},
      {DataType::Float8E5M2, std::ldexp(1.0, -16), true, 0x01},
      {DataType::Float8E5M2FNUZ, 0.5, true, 0x3c},
      {DataType::Float8E5M2FNUZ, -1e-7, false, 0x00},
      {DataType::Float8E5M2FNUZ, -inf, false, 0x80},
      {DataType::Float4E2M1, 6.0, true, 0x7},
      {DataType::Float4E2M1, 1e6, false, 0x7},  // float4 has no infinity or NaN: always saturates
      {DataType::Float4E2M1, -8.0, true, 0xf},
      {DataType::Float4E2M1, 0.25, true, 0x0},
      {DataType::Float4E2M1, 0.75, true, 0x2},
      {DataType::Float4E2M1, -3.5, true, 0xe},
      {DataType::Int4, 8.0, true, 0xf8},  // wraps to -8, stored sign-extended
      {DataType::Int4, -9.0, true, 0x07},
      {DataType::Int4, 2.7, true, 0x02},
      {DataType::Uint4, 17.0, true, 0x01},
      {DataType::Uint2, -1.0, true, 0x03},
      {DataType::Int2, 2.0, true, 0xfe},
      {DataType::Float8E8M0, 1.0, true, 0x7f},
      {DataType::Float8E8M0, 0.124, true, 0x7c},
      {DataType::Float8E8M0, inf, true, 0xfe},
      {DataType::Float8E8M0, nan, true, 0xff},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(int(doubleToNarrow(c.dtype, c.value, c.saturate)), c.expected)
        << dataTypeName(c.dtype) << " " << c.value << " saturate " << c.saturate;
  }
}

TEST(NarrowTypes, E8M0RoundingModes) {
  EXPECT_EQ(doubleToNarrow(DataType::Float8E8M0, 1.1, true, E8M0Rounding::Up), 0x80);
  EXPECT_EQ(doubleToNarrow(DataType::Float8E8M0, 1.9, true, E8M0Rounding::Down), 0x7f);
  EXPECT_EQ(doubleToNarrow(DataType::Float8E8M0, 1.6, true, E8M0Rounding::Nearest), 0x80);
  EXPECT_EQ(doubleToNarrow(DataType::Float8E8M0, 1.4, true, E8M0Rounding::Nearest), 0x7f);
  E8M0Rounding mode = E8M0Rounding::Up;
  EXPECT_TRUE(parseE8M0Rounding("nearest", mode));
  EXPECT_EQ(mode, E8M0Rounding::Nearest);
  EXPECT_FALSE(parseE8M0Rounding("sideways", mode));
}

TEST(NarrowTypes, DecodesEdgeValues) {
  EXPECT_TRUE(std::isnan(narrowToDouble(DataType::Float8E4M3FN, 0x7f)));
  EXPECT_TRUE(std::isnan(narrowToDouble(DataType::Float8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(narrowToDouble(DataType::Float8E5M2FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(narrowToDouble(DataType::Float8E5M2, 0x7e)));
  EXPECT_TRUE(std::isnan(narrowToDouble(DataType::Float8E8M0, 0xff)));
  EXPECT_EQ(narrowToDouble(DataType::Float8E5M2, 0xfc), -INFINITY);
  EXPECT_EQ(narrowToDouble(DataType::Float8E4M3FN, 0x7e), 448.0);
  EXPECT_EQ(narrowToDouble(DataType::Float8E4M3FN, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(narrowToDouble(DataType::Float8E4M3FN, 0x08), std::ldexp(1.0, -6));
  EXPECT_TRUE(std::signbit(narrowToDouble(DataType::Float8E4M3FN, 0x80)));
  EXPECT_EQ(narrowToDouble(DataType::Float8E4M3FNUZ, 0x7f), 240.0);
  EXPECT_EQ(narrowToDouble(DataType::Float8E5M2FNUZ, 0x7f), 57344.0);
  EXPECT_EQ(narrowToDouble(DataType::Float4E2M1, 0x5), 3.0);
  EXPECT_EQ(narrowToDouble(DataType::Float4E2M1, 0x9), -0.5);
  EXPECT_EQ(narrowToDouble(DataType::Float8E8M0, 0x80), 2.0);
  EXPECT_EQ(narrowToDouble(DataType::Int4, 0xf8), -8.0);
  EXPECT_EQ(narrowToDouble(DataType::Uint2, 0x03), 3.0);
}

TEST(NarrowTypes, EveryFiniteFloat8ValueRoundTrips) {
  for (DataType dtype : {DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                         DataType::Float8E5M2FNUZ, DataType::Float8E8M0}) {
    for (int stored = 0; stored < 256; ++stored) {
      double v = narrowToDouble(dtype, uint8_t(stored));
      if (!std::isfinite(v)) continue;
      if (v == 0.0 && (dtype == DataType::Float8E4M3FNUZ || dtype == DataType::Float8E5M2FNUZ)) continue;
      EXPECT_EQ(int(doubleToNarrow(dtype, v, false)), stored) << dataTypeName(dtype) << " " << v;
    }
  }
}

TEST(NarrowTypes, CastKernelHonoursSaturate) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {3}, {1.0f, 1e6f, -INFINITY});
  auto saturated = runNode({"Cast", {Attribute::ofInt("to", int64_t(DataType::Float8E4M3FN))}, 21}, {x}, "");
  ASSERT_TRUE(saturated.ok()) << saturated.error().toString();
  const auto& s = std::get<TensorValue>((*saturated)[0]);
  EXPECT_EQ(std::vector<uint8_t>(s.data<uint8_t>(), s.data<uint8_t>() + 3),
            (std::vector<uint8_t>{0x38, 0x7e, 0xfe}));
  auto exact =
      runNode({"Cast",
               {Attribute::ofInt("to", int64_t(DataType::Float8E4M3FN)), Attribute::ofInt("saturate", 0)},
               21},
              {x}, "");
  ASSERT_TRUE(exact.ok()) << exact.error().toString();
  const auto& e = std::get<TensorValue>((*exact)[0]);
  EXPECT_EQ(std::vector<uint8_t>(e.data<uint8_t>(), e.data<uint8_t>() + 3),
            (std::vector<uint8_t>{0x38, 0x7f, 0xff}));
}

TEST(NarrowTypes, BitCastRejectsDifferentWidths) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {2}, {1.0f, -2.0f});
  auto same = runNode({"BitCast", {Attribute::ofInt("to", int64_t(DataType::Int32))}, 26}, {x}, "");
  ASSERT_TRUE(same.ok()) << same.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*same)[0]).toInts(),
            (std::vector<int64_t>{0x3f800000, int32_t(0xc0000000)}));
  auto wider = runNode({"BitCast", {Attribute::ofInt("to", int64_t(DataType::Int64))}, 26}, {x}, "");
  EXPECT_FALSE(wider.ok());
}

TEST(NarrowTypes, DynamicQuantizeLinearIncludesZeroInRange) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {3}, {1.0f, 2.0f, 2.55f});
  auto result = runNode({"DynamicQuantizeLinear", {}, 11, 3}, {x}, "");
  ASSERT_TRUE(result.ok()) << result.error().toString();
  EXPECT_FLOAT_EQ(float(std::get<TensorValue>((*result)[1]).doubleAt(0)), 0.01f);
  EXPECT_EQ(std::get<TensorValue>((*result)[2]).intAt(0), 0);
  EXPECT_EQ(std::get<TensorValue>((*result)[0]).toInts(), (std::vector<int64_t>{100, 200, 255}));
}

TEST(NarrowTypes, ConvIntegerPadsWithTheZeroPoint) {
  std::vector<uint8_t> xs{2, 3, 4, 5, 6, 7, 8, 9, 10};
  auto x = TensorValue::fromVector<uint8_t>(DataType::Uint8, {1, 1, 3, 3}, xs);
  auto w = TensorValue::fromVector<uint8_t>(DataType::Uint8, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto xZero = TensorValue::scalar<uint8_t>(DataType::Uint8, 1);
  auto result = runNode({"ConvInteger", {Attribute::ofInts("pads", {1, 1, 1, 1})}, 10}, {x, w, xZero}, "");
  ASSERT_TRUE(result.ok()) << result.error().toString();
  const auto& y = std::get<TensorValue>((*result)[0]);
  EXPECT_EQ(y.dims(), (Dims{1, 1, 4, 4}));
  // Corners see one input element, edges two, the middle four (each minus the zero point 1).
  EXPECT_EQ(y.toInts(), (std::vector<int64_t>{1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));
}

}  // namespace
}  // namespace onyx::exec::testing
