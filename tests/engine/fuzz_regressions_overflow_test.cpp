// Undefined behaviour a hostile file could reach, found by reading every kernel for it (session 19's audit,
// while fuzz_run ran): signed integer arithmetic past its type, doubles (NaN, 1e30, 2^63) converted to
// integers, and attribute arithmetic (strides, groups, block sizes of 2^62) past int64. Integer arithmetic
// now wraps, as ONNX Runtime's kernels do, conversions saturate, and sizes past int64 are errors. The
// release build checks the values; the ASan+UBSan build (packaging/sanitize.sh asan) checks the absence of
// undefined behaviour on the same cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "fuzz_regressions_util.h"
#include "onnx/onnx_io.h"
#include "profile/static_flops.h"
#include "shapes/shape_inference.h"

namespace onyx::exec {
namespace {

using fuzz_regressions::f32;
using fuzz_regressions::i64;
using fuzz_regressions::says;
using testing::NodeCase;
using testing::runError;
using testing::runNode;

constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();

TensorValue i32(Dims dims, std::vector<int32_t> values) {
  return TensorValue::fromVector<int32_t>(DataType::Int32, std::move(dims), values);
}
TensorValue u8(Dims dims, std::vector<uint8_t> values) {
  return TensorValue::fromVector<uint8_t>(DataType::Uint8, std::move(dims), values);
}

template <class T>
std::vector<T> outputOf(const Expected<std::vector<RunValue>>& ran, size_t i = 0) {
  const auto& t = std::get<TensorValue>((*ran)[i]);
  return std::vector<T>(t.span<T>().begin(), t.span<T>().end());
}

template <class T>
std::vector<T> run(const NodeCase& node, const std::vector<TensorValue>& inputs) {
  auto ran = runNode(node, inputs, "");
  EXPECT_TRUE(ran.ok()) << ran.error().toString();
  if (!ran.ok()) return {};
  return outputOf<T>(ran);
}

TEST(FuzzRegressionsOverflow, IntegerArithmeticWraps) {
  EXPECT_EQ(run<int32_t>({"Add"}, {i32({1}, {kMax32}), i32({1}, {1})}), (std::vector<int32_t>{kMin32}));
  EXPECT_EQ(run<int64_t>({"Sub"}, {i64({1}, {kMin64}), i64({1}, {1})}), (std::vector<int64_t>{kMax64}));
  EXPECT_EQ(run<int32_t>({"Mul"}, {i32({1}, {65536}), i32({1}, {65536})}), (std::vector<int32_t>{0}));
  EXPECT_EQ(run<int64_t>({"Div"}, {i64({1}, {kMin64}), i64({1}, {-1})}), (std::vector<int64_t>{kMin64}));
  EXPECT_EQ(run<int32_t>({"Neg"}, {i32({2}, {kMin32, 5})}), (std::vector<int32_t>{kMin32, -5}));
  EXPECT_EQ(run<int64_t>({"Abs"}, {i64({2}, {kMin64, -5})}), (std::vector<int64_t>{kMin64, 5}));
  EXPECT_EQ(run<int32_t>({"Sum"}, {i32({1}, {kMax32}), i32({1}, {kMax32}), i32({1}, {2})}),
            (std::vector<int32_t>{0}));
  EXPECT_EQ(run<int32_t>({"PRelu"}, {i32({1}, {kMin32}), i32({1}, {2})}), (std::vector<int32_t>{0}));
  EXPECT_EQ(run<int32_t>({"CumSum"}, {i32({2}, {kMax32, 1}), i32({}, {0})}), (std::vector<int32_t>{kMax32, kMin32}));
  // Products: the reference kernels' integer paths.
  EXPECT_EQ(run<int32_t>({"MatMul"}, {i32({1, 2}, {65536, 1}), i32({2, 1}, {65536, 1})}),
            (std::vector<int32_t>{1}));
  const NodeCase einsum("Einsum", {Attribute::ofString("equation", "i,i->")}, 12);
  EXPECT_EQ(run<int64_t>(einsum, {i64({2}, {kMax64, 1}), i64({2}, {2, 2})}), (std::vector<int64_t>{0}));
  // Mean of integers (ONNX defines it for floats; Onyx keeps its integer path) over more inputs than int8 holds.
  std::vector<TensorValue> bytes(256, TensorValue::fromVector<int8_t>(DataType::Int8, {1}, {int8_t(3)}));
  EXPECT_EQ(run<int8_t>({"Mean"}, bytes), (std::vector<int8_t>{0}));
}

TEST(FuzzRegressionsOverflow, RangeWrapsOnlyInItsIntermediates) {
  // From int32's lowest to its highest by 65536: i * delta passes int32 before start brings it back.
  auto range = run<int32_t>({"Range", {}, 11}, {i32({}, {kMin32}), i32({}, {kMax32}), i32({}, {65536})});
  ASSERT_EQ(range.size(), 65536u);
  EXPECT_EQ(range.front(), kMin32);
  EXPECT_EQ(range.back(), kMax32 - 65535);  // kMin32 + 65535 * 65536
}

TEST(FuzzRegressionsOverflow, ConversionsToIntegersSaturate) {
  // Gemm's integer path scales by alpha in doubles: NaN is 0, 1e30 the type's maximum.
  EXPECT_EQ(run<int32_t>({"Gemm", {Attribute::ofFloat("alpha", 1e30f)}}, {i32({1, 1}, {2}), i32({1, 1}, {3})}),
            (std::vector<int32_t>{-1}));  // int64's maximum, narrowed to int32 as a cast does
  EXPECT_EQ(run<int32_t>({"Gemm", {Attribute::ofFloat("alpha", std::nanf(""))}}, {i32({1, 1}, {2}), i32({1, 1}, {3})}),
            (std::vector<int32_t>{0}));
  // OneHot's int64 index near the maximum (2^63 as a double) and a NaN float index.
  const NodeCase oneHot("OneHot", {}, 11);
  EXPECT_EQ(run<float>(oneHot, {i64({1}, {kMax64}), i64({1}, {3}), f32({2}, {0.0f, 1.0f})}),
            (std::vector<float>{0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(run<float>(oneHot, {f32({1}, {std::nanf("")}), i64({1}, {3}), f32({2}, {0.0f, 1.0f})}),
            (std::vector<float>{1.0f, 0.0f, 0.0f}));
  // Pad-2's float constant on int32 data.
  const NodeCase pad("Pad", {Attribute::ofInts("pads", {1, 0}), Attribute::ofFloat("value", 1e10f)}, 2);
  EXPECT_EQ(run<int32_t>(pad, {i32({1}, {7})}), (std::vector<int32_t>{kMax32, 7}));
  // Cast to int4 of a value past int64 keeps the low bits of the saturated value.
  const NodeCase cast("Cast", {Attribute::ofInt("to", int64_t(DataType::Int4))}, 21);
  EXPECT_EQ(run<int8_t>(cast, {f32({3}, {1e30f, -1e30f, 5.0f})}), (std::vector<int8_t>{-1, 0, 5}));
  // AveragePool's integer path: the average of two int64 maxima is 2^63 as a double.
  const NodeCase average("AveragePool", {Attribute::ofInts("kernel_shape", {2})}, 11);
  EXPECT_EQ(run<int64_t>(average, {i64({1, 1, 2}, {kMax64, kMax64})}), (std::vector<int64_t>{kMax64}));
  // GridSample's reflection of a grid point at 1e30 lands inside the image (it used to convert 1e30 / range).
  const NodeCase grid("GridSample", {Attribute::ofString("padding_mode", "reflection")}, 16);
  auto sampled = run<float>(grid, {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 1, 2}, {1e30f, 0.0f})});
  ASSERT_EQ(sampled.size(), 1u);
  EXPECT_TRUE(sampled[0] >= 1.0f && sampled[0] <= 4.0f) << sampled[0];
}

TEST(FuzzRegressionsOverflow, SlicesAndSplitsAtTheInt64Limits) {
  const TensorValue x = f32({5}, {0, 1, 2, 3, 4});
  const NodeCase slice("Slice", {}, 13);
  EXPECT_EQ(run<float>(slice, {x, i64({1}, {0}), i64({1}, {5}), i64({1}, {0}), i64({1}, {kMax64})}),
            (std::vector<float>{0}));
  EXPECT_EQ(run<float>(slice, {x, i64({1}, {-1}), i64({1}, {kMin64}), i64({1}, {0}), i64({1}, {kMin64})}),
            (std::vector<float>{4}));
  const NodeCase split("Split", {}, 13, 2);
  EXPECT_TRUE(says(runError(split, {x, i64({2}, {kMax64, 2})}), "split sizes add up past dim 5"));
  const NodeCase pad("Pad", {}, 13);
  EXPECT_TRUE(says(runError(pad, {f32({3}, {1, 2, 3}), i64({2}, {kMin64, kMax64})}), "pads crop"));
}

TEST(FuzzRegressionsOverflow, WindowAttributesPastInt64AreErrors) {
  const TensorValue x = f32({1, 4, 2, 2}, std::vector<float>(16, 1.0f));
  const TensorValue w = f32({1, 2, 1, 1}, {1.0f, 1.0f});
  EXPECT_TRUE(says(runError({"Conv", {Attribute::ofInt("group", int64_t(1) << 62)}}, {x, w}), "do not match weights"));
  EXPECT_TRUE(says(runError({"ConvTranspose", {Attribute::ofInt("group", int64_t(1) << 62)}}, {x, f32({4, 2, 1, 1}, std::vector<float>(8, 1.0f))}),
                   "channels do not match weights"));
  EXPECT_TRUE(says(runError({"Conv", {Attribute::ofInts("strides", {kMax64, 1})}}, {x, f32({1, 4, 1, 1}, {1, 1, 1, 1})}),
                   "must be within 2^61"));
  EXPECT_TRUE(says(runError({"MaxPool", {Attribute::ofInts("kernel_shape", {8, 2}), Attribute::ofInts("dilations", {int64_t(1) << 60, 1})}}, {x}),
                   "kernel_shape [8, 2] dilated by [1152921504606846976, 1] spans past 2^61"));
  EXPECT_TRUE(says(runError({"MaxPool", {Attribute::ofInts("kernel_shape", {2, 2}), Attribute::ofInts("dilations", {int64_t(1) << 62, 1})}}, {x}),
                   "dilations [4611686018427387904, 1] must be within 2^61"));
  EXPECT_TRUE(says(runError({"AveragePool", {Attribute::ofInts("kernel_shape", {1, 1}), Attribute::ofInts("pads", {kMax64, 0, 0, 0})}}, {x}),
                   "must be within 2^61"));
  const NodeCase transpose("ConvTranspose", {Attribute::ofInts("output_shape", {kMin64})});
  EXPECT_TRUE(says(runError(transpose, {f32({1, 1, 3}, {1, 2, 3}), f32({1, 1, 1}, {1})}), "output size passes 2^63"));
  const NodeCase depth("DepthToSpace", {Attribute::ofInt("blocksize", int64_t(1) << 32)}, 13);
  EXPECT_TRUE(says(runError(depth, {x}), "blocksize 4294967296 is too large"));
  const NodeCase unpool("MaxUnpool", {Attribute::ofInts("kernel_shape", {1, 1}), Attribute::ofInts("pads", {2, 2, 2, 2})}, 11);
  EXPECT_TRUE(says(runError(unpool, {f32({1, 1, 1, 1}, {5}), i64({1, 1, 1, 1}, {2})}), "no valid unpooled size"));
  const NodeCase col2im("Col2Im", {Attribute::ofInts("dilations", {int64_t(1) << 62, 1})}, 18);
  EXPECT_TRUE(says(runError(col2im, {f32({1, 6, 1}, {1, 2, 3, 4, 5, 6}), i64({2}, {3, 3}), i64({2}, {3, 2})}), "past 2^63"));
}

TEST(FuzzRegressionsOverflow, IntegerConvolutionsCheckTheirAttributesAndZeroPoints) {
  const TensorValue x = u8({1, 1, 2, 2}, {1, 2, 3, 4}), w = u8({1, 1, 1, 1}, {2});
  EXPECT_TRUE(says(runError({"ConvInteger", {Attribute::ofInts("pads", {-1, 0, 0, 0})}, 10}, {x, w}), "pads between 0 and 2^31"));
  EXPECT_TRUE(says(runError({"ConvInteger", {Attribute::ofInts("strides", {kMax64, 1})}, 10}, {x, w}), "within 2^31"));
  EXPECT_TRUE(says(runError({"ConvInteger", {}, 10}, {x, w, f32({1}, {1e30f})}), "must have the type of"));
  EXPECT_EQ(run<int32_t>({"ConvInteger", {}, 10}, {x, w, u8({1}, {1})}), (std::vector<int32_t>{0, 2, 4, 6}));
}

TEST(FuzzRegressionsOverflow, QuantizationAndRecurrenceSizesPastInt64) {
  // block_size INT64_MAX: one block along the axis (ceil(2 / INT64_MAX)), no overflow on the way.
  const NodeCase quantize("QuantizeLinear", {Attribute::ofInt("axis", 1), Attribute::ofInt("block_size", kMax64)}, 21);
  EXPECT_EQ(run<uint8_t>(quantize, {f32({1, 2}, {2.0f, 4.0f}), f32({1, 1}, {2.0f}), u8({1, 1}, {0})}),
            (std::vector<uint8_t>{1, 2}));
  const NodeCase lstm("LSTM", {Attribute::ofInt("hidden_size", int64_t(1) << 62)}, 14, 3);
  EXPECT_TRUE(says(runError(lstm, {f32({1, 1, 1}, {1}), f32({1, 4, 1}, {1, 1, 1, 1}), f32({1, 4, 1}, {1, 1, 1, 1})}),
                   "hidden_size 4611686018427387904 is out of range"));
  const NodeCase einsum("Einsum", {Attribute::ofString("equation", "a,b,c,d->")}, 12);
  const TensorValue wide = f32({65536}, std::vector<float>(65536, 1.0f));
  EXPECT_TRUE(says(runError(einsum, {wide, wide, wide, wide}), "past 2^63 combinations"));
  const NodeCase affine("AffineGrid", {}, 20);
  EXPECT_TRUE(says(runError(affine, {f32({1, 2, 3}, {1, 0, 0, 0, 1, 0}), i64({4}, {1, 1, int64_t(1) << 32, int64_t(1) << 32})}),
                   "multiply past 2^63"));
}

// fuzz_run's own cost estimate multiplied a MatMulNBits' N of 2^62 in int64 (the com.microsoft formulas);
// they count in doubles now and saturate.
TEST(FuzzRegressionsOverflow, ContribFlopsSaturate) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[1, 16] a, uint8[1, 1, 8] b, float[1] scales) => (float[1, 4611686018427387904] y) {
  y = com.microsoft.MatMulNBits <K = 16, N = 4611686018427387904, bits = 4, block_size = 16> (a, b, scales)
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const ShapeInference shapes = inferShapes(**model);
  EXPECT_EQ(profile::estimateFlops(**(*model)->graph().nodes().begin(), shapes), kMax64);
}

}  // namespace
}  // namespace onyx::exec
