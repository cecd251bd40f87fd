// Kernel inputs the fuzz targets (tests/fuzz, packaging/fuzz.sh) found reading or writing out of bounds, or
// into undefined behaviour, under ASan+UBSan. Each is now an error naming the input, or a defined result.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"
#include "onnx_io_test_support.h"
#include "shapes/shape_helpers.h"

namespace onyx::exec {
namespace {

using testing::NodeCase;
using testing::runError;
using testing::runNode;

TensorValue ints(Dims dims, std::vector<int64_t> values) {
  return TensorValue::fromVector<int64_t>(DataType::Int64, std::move(dims), values);
}

TensorValue floats(Dims dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return TensorValue::fromVector<float>(DataType::Float, std::move(dims), std::vector<float>(size_t(count), 1.0f));
}

// ASan: ScatterND read float32 updates of int64 data as int64, past their end.
TEST(FuzzRegressionsKernels, ScatterNdUpdatesOfAnotherTypeAreAnError) {
  const std::string error = runError(NodeCase("ScatterND", {}, 18),
                                     {ints({4, 4}, std::vector<int64_t>(16, 1)), ints({2, 1}, {0, 1}), floats({2, 4})});
  ASSERT_FALSE(error.empty());
  EXPECT_NE(error.find("must have the data's type"), std::string::npos) << error;
}

// A data dim of 0 has no place even for index 0: ScatterND wrote its slice into an empty output.
TEST(FuzzRegressionsKernels, ScatterNdIntoAnEmptyDimIsAnError) {
  const std::string error =
      runError(NodeCase("ScatterND", {}, 18), {floats({0, 4}), ints({1, 1}, {0}), floats({1, 4})});
  ASSERT_FALSE(error.empty());
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
}

// ScatterElements read updates by the indices' count and wrote through indices wider than the data.
TEST(FuzzRegressionsKernels, ScatterElementsChecksUpdatesAndIndexShapes) {
  const NodeCase scatter("ScatterElements", {Attribute::ofInt("axis", 0)}, 18);
  std::string error = runError(scatter, {floats({3, 2}), ints({2, 2}, {0, 1, 2, 0}), floats({1, 2})});
  EXPECT_NE(error.find("must have the shape of indices"), std::string::npos) << error;
  error = runError(scatter, {floats({3, 2}), ints({1, 5}, {0, 1, 2, 0, 1}), floats({1, 5})});
  EXPECT_NE(error.find("reach past"), std::string::npos) << error;
  error = runError(scatter, {floats({3, 2}), ints({1, 2}, {0, 1}), TensorValue::fromVector<double>(DataType::Double, {1, 2}, {1, 2})});
  EXPECT_NE(error.find("must have the data's type"), std::string::npos) << error;
  auto fine = runNode(scatter, {floats({3, 2}), ints({1, 2}, {2, 0}), floats({1, 2})}, "");
  EXPECT_TRUE(fine.ok()) << fine.error().toString();
}

// GatherElements read through indices wider than the data in a dim other than the axis.
TEST(FuzzRegressionsKernels, GatherElementsIndicesPastTheDataAreAnError) {
  const NodeCase gather("GatherElements", {Attribute::ofInt("axis", 1)}, 13);
  const std::string error = runError(gather, {floats({2, 3}), ints({4, 1}, {0, 1, 2, 0})});
  EXPECT_NE(error.find("reach past"), std::string::npos) << error;
  EXPECT_FALSE(runError(gather, {floats({2, 0}), ints({2, 1}, {0, 0})}).empty()) << "an empty axis has no index 0";
}

// UBSan: an int64 "mul" reduction overflowed a signed type. Integers wrap, as two's complement does.
TEST(FuzzRegressionsKernels, ScatterIntegerReductionsWrap) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  auto y = runNode(NodeCase("ScatterElements", {Attribute::ofString("reduction", "mul")}, 18),
                   {ints({2}, {big, 3}), ints({1}, {0}), ints({1}, {2})}, "");
  ASSERT_TRUE(y.ok()) << y.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*y)[0]).data<int64_t>()[0], -2);  // (2^63 - 1) * 2 wraps to -2
  auto sum = runNode(NodeCase("ScatterND", {Attribute::ofString("reduction", "add")}, 18),
                     {ints({2}, {big, 3}), ints({1, 1}, {0}), ints({1}, {1})}, "");
  ASSERT_TRUE(sum.ok()) << sum.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*sum)[0]).data<int64_t>()[0], std::numeric_limits<int64_t>::min());
}

// ASan: Attention read a 1-byte past_key as float16, past its end; Q, K, V of mixed ranks read past dims.
TEST(FuzzRegressionsKernels, AttentionRefusesMixedTypesAndRanks) {
  const NodeCase attention("Attention", {}, 23);
  auto q = floats({1, 2, 3, 4});
  std::string error = runError(attention, {q, TensorValue::fromVector<double>(DataType::Double, {1, 2, 3, 4},
                                                                             std::vector<double>(24, 1.0)), q});
  EXPECT_TRUE(error.find("must have Q's type") != std::string::npos ||
              error.find("must have the same element type") != std::string::npos) << error;
  const TensorValue pastKey = TensorValue::fromVector<uint8_t>(DataType::Uint8, {1, 2, 1, 4}, std::vector<uint8_t>(8, 1));
  error = runError(attention, {q, q, q, TensorValue(), pastKey, floats({1, 2, 1, 4})});
  EXPECT_FALSE(error.empty()) << "a past_key of bytes read as float";
  error = runError(NodeCase("Attention", {Attribute::ofInt("q_num_heads", 2), Attribute::ofInt("kv_num_heads", 2)}, 23),
                   {floats({1, 3, 8}), floats({1, 2, 3, 4}), floats({1, 2, 3, 4})});
  EXPECT_FALSE(error.empty());
}

// UBSan: a V head size of 0 left the present values empty and Attention formed &values[row] past their end.
// A head size of 0 is an empty output for V, and for Q and K a score of 0 for every key: uniform attention.
TEST(FuzzRegressionsKernels, AttentionWithHeadSizeZeroIsDefined) {
  const NodeCase attention("Attention", {}, 23);
  auto empty = runNode(attention, {floats({2, 3, 4, 8}), floats({2, 3, 6, 8}), floats({2, 3, 6, 0}),
                                   floats({2, 3, 4, 6})}, "");
  ASSERT_TRUE(empty) << empty.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*empty)[0]).dims(), (Dims{2, 3, 4, 0}));

  const TensorValue values =
      TensorValue::fromVector<float>(DataType::Float, {1, 1, 3, 2}, {1.0f, 2.0f, 3.0f, 4.0f, 8.0f, 9.0f});
  auto uniform = runNode(attention, {floats({1, 1, 2, 0}), floats({1, 1, 3, 0}), values}, "");
  ASSERT_TRUE(uniform) << uniform.error().toString();
  const TensorValue& y = std::get<TensorValue>((*uniform)[0]);
  ASSERT_EQ(y.dims(), (Dims{1, 1, 2, 2}));
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_FLOAT_EQ(y.data<float>()[2 * i], 4.0f) << "query " << i;
    EXPECT_FLOAT_EQ(y.data<float>()[2 * i + 1], 5.0f) << "query " << i;
  }
}

// ASan: BitShift read its shifts as X's type: uint16 X with shifts of an element type the file made up (68)
// read past them. Shifts of another type are an error, and so is a random input of a made-up type.
TEST(FuzzRegressionsKernels, BitShiftOfMixedTypesAndMadeUpTypesAreErrors) {
  const NodeCase shift("BitShift", {Attribute::ofString("direction", "LEFT")}, 11);
  const TensorValue x = TensorValue::fromVector<uint16_t>(DataType::Uint16, {3}, {1, 2, 3});
  const TensorValue bytes = TensorValue::fromVector<uint8_t>(DataType::Uint8, {3}, {1, 1, 1});
  std::string error = runError(shift, {x, bytes});
  EXPECT_NE(error.find("different element types"), std::string::npos) << error;
  auto same = runNode(shift, {x, x}, "");
  ASSERT_TRUE(same) << same.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*same)[0]).data<uint16_t>()[2], 24);

  onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(11);
  onnx::GraphProto* graph = proto.mutable_graph();
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("BitShift");
  node->add_input("x");
  node->add_input("y");
  node->add_output("z");
  for (auto [name, type] : {std::pair<const char*, int>{"x", 4}, {"y", 68}}) {
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name(name);
    input->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    input->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  }
  graph->add_output()->set_name("z");
  auto model = parseModel(proto.SerializeAsString(), {}, "made-up type");
  ASSERT_TRUE(model) << model.error().toString();
  auto random = randomInput(*(*model)->graph().inputs()[1], {}, 1);
  ASSERT_FALSE(random);
  EXPECT_NE(random.error().toString().find("element type 68, which is not an ONNX element type"),
            std::string::npos)
      << random.error().toString();
}

// UBSan: a grid position of 5.5e19 (and NaN) converted to int64. Far outside is padding: zeros.
TEST(FuzzRegressionsKernels, GridSampleFarAndNanPositionsArePadding) {
  auto x = floats({1, 1, 2, 2});
  auto grid = TensorValue::fromVector<float>(DataType::Float, {1, 1, 2, 2},
                                             {5.5e19f, 0.0f, std::nanf(""), -3e30f});
  for (const char* mode : {"linear", "nearest", "cubic"}) {
    auto y = runNode(NodeCase("GridSample", {Attribute::ofString("mode", mode)}, 22), {x, grid}, "");
    ASSERT_TRUE(y.ok()) << mode << ": " << y.error().toString();
    const auto& out = std::get<TensorValue>((*y)[0]);
    ASSERT_EQ(out.count(), 2);
    EXPECT_EQ(out.data<float>()[0], 0.0f) << mode;
  }
}

// ASan: GridSample read a float16 grid as X's float, past its end. The grid has its own type (T2).
TEST(FuzzRegressionsKernels, GridSampleReadsAGridOfItsOwnType) {
  auto x = TensorValue::fromVector<float>(DataType::Float, {1, 1, 2, 2}, {1, 2, 3, 4});
  const std::vector<float> at = {-0.5f, -0.5f, 0.5f, 0.5f, 0.0f, 0.0f};
  auto grid32 = TensorValue::fromVector<float>(DataType::Float, {1, 1, 3, 2}, at);
  auto grid16 = TensorValue::allocate(DataType::Float16, {1, 1, 3, 2});
  for (size_t i = 0; i < at.size(); ++i) grid16.data<Half>()[i] = Half(at[i]);
  auto wide = runNode(NodeCase("GridSample", {}, 20), {x, grid32}, "");
  auto narrow = runNode(NodeCase("GridSample", {}, 20), {x, grid16}, "");
  ASSERT_TRUE(wide.ok()) << wide.error().toString();
  ASSERT_TRUE(narrow.ok()) << narrow.error().toString();
  const auto& a = std::get<TensorValue>((*wide)[0]);
  const auto& b = std::get<TensorValue>((*narrow)[0]);
  ASSERT_EQ(b.dims(), (Dims{1, 1, 1, 3}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
  EXPECT_EQ(b.data<float>()[0], 1.0f);  // (-0.5, -0.5) is the centre of the first pixel
  EXPECT_EQ(b.data<float>()[2], 2.5f);  // the middle: the mean of all four
}

// ASan: an RNN with a 1-D R read past R's dims while defaulting hidden_size.
TEST(FuzzRegressionsKernels, RnnRecurrenceWeightsOfTheWrongRankAreAnError) {
  const std::string error = runError(NodeCase("RNN", {}, 14), {floats({2, 1, 3}), floats({1, 4, 3}), floats({4})});
  EXPECT_NE(error.find("R must be 3-D"), std::string::npos) << error;
}

// ASan: the reference recurrent kernel (the one for doubles) read a short B past its end. Both kernels check
// every operand's size the same way now.
TEST(FuzzRegressionsKernels, RecurrentOperandsOfTheWrongSizeAreAnError) {
  auto doubles = [](Dims dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return TensorValue::fromVector<double>(DataType::Double, std::move(dims), std::vector<double>(size_t(count), 0.5));
  };
  const NodeCase gru("GRU", {Attribute::ofInt("hidden_size", 2)}, 14);
  std::string error = runError(gru, {doubles({3, 1, 4}), doubles({1, 6, 4}), doubles({1, 6, 2}), doubles({5})});
  EXPECT_NE(error.find("B "), std::string::npos) << error;
  EXPECT_NE(error.find("should hold 12 values"), std::string::npos) << error;
  error = runError(gru, {floats({3, 1, 4}), floats({1, 6, 4}), floats({1, 6, 2}), floats({5})});
  EXPECT_NE(error.find("should hold 12 values"), std::string::npos) << "the float kernel: " << error;
  error = runError(gru, {doubles({3, 1, 4}), doubles({1, 6, 4}), doubles({1, 6, 2}), TensorValue(), TensorValue(),
                         doubles({1, 1, 1})});
  EXPECT_NE(error.find("initial_h"), std::string::npos) << error;
  auto fine = runNode(gru, {doubles({3, 1, 4}), doubles({1, 6, 4}), doubles({1, 6, 2}), doubles({1, 12})}, "");
  EXPECT_TRUE(fine.ok()) << fine.error().toString();
}

// UBSan: RoiAlign converted a NaN region's sample position and grid size to integers; a huge region would
// sample without end. Both are errors naming the region, from either kernel.
TEST(FuzzRegressionsKernels, RoiAlignRefusesRegionsItCannotSample) {
  const NodeCase roiAlign("RoiAlign", {Attribute::ofInt("output_height", 2), Attribute::ofInt("output_width", 2)}, 16);
  const auto batchIndex = ints({1}, {0});
  for (const std::vector<float>& box : {std::vector<float>{0, 0, std::nanf(""), 2}, std::vector<float>{0, 0, 3e30f, 2},
                                        std::vector<float>{std::nanf(""), 0, 2, 2}}) {
    auto rois = TensorValue::fromVector<float>(DataType::Float, {1, 4}, box);
    const std::string error = runError(roiAlign, {floats({1, 1, 4, 4}), rois, batchIndex});
    EXPECT_NE(error.find("region 0 has a coordinate that is not finite"), std::string::npos) << error;
  }
  auto fine = runNode(roiAlign, {floats({1, 1, 4, 4}), TensorValue::fromVector<float>(DataType::Float, {1, 4}, {0, 0, 2, 2}),
                                 batchIndex}, "");
  ASSERT_TRUE(fine.ok()) << fine.error().toString();
  // UBSan: a region of extent -3e30 (x2 far left of x1) converted its samples per bin, -1e30, to int64. It
  // samples nothing: every bin is 0.
  auto reversed = runNode(roiAlign, {floats({1, 1, 4, 4}), TensorValue::fromVector<float>(DataType::Float, {1, 4}, {0, 0, -3e30f, 2}),
                                     batchIndex}, "");
  ASSERT_TRUE(reversed.ok()) << reversed.error().toString();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(std::get<TensorValue>((*reversed)[0]).data<float>()[i], 0.0f);
  // ASan: an image of width 0 was sampled at pixel -1. It has nothing to sample: every bin is 0.
  auto empty = runNode(roiAlign, {floats({1, 1, 4, 0}), TensorValue::fromVector<float>(DataType::Float, {1, 4}, {0, 0, 2, 2}),
                                  batchIndex}, "");
  ASSERT_TRUE(empty.ok()) << empty.error().toString();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(std::get<TensorValue>((*empty)[0]).data<float>()[i], 0.0f);
}

// A negative num_scan_inputs sized a vector past max_size (fuzz_run: std::length_error ended the process),
// and one past the inputs underflowed the carried count. Both are errors, as are axes lists of another length.
TEST(FuzzRegressionsKernels, ScanChecksItsCountsBeforeUsingThem) {
  auto scan = [](const std::string& attributes) {
    auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 16]>
g (float[2] s0, float[3, 2] xs) => (float[2] s, float[3, 2] ys) {
  s, ys = Scan <)" + attributes + R"(, body = b (float[2] si, float[2] xi) => (float[2] so, float[2] yo) {
    so = Add(si, xi)
    yo = Identity(so)
  }> (s0, xs)
})");
    if (!model.ok()) return model.error().toString();
    auto executor = Executor::create(**model);
    if (!executor.ok()) return executor.error().toString();
    auto outputs = (*executor)->run({{"s0", floats({2})}, {"xs", floats({3, 2})}});
    return outputs.ok() ? std::string() : outputs.error().toString();
  };
  EXPECT_EQ(scan("num_scan_inputs = 1"), "");
  EXPECT_NE(scan("num_scan_inputs = -1").find("num_scan_inputs is -1"), std::string::npos) << scan("num_scan_inputs = -1");
  EXPECT_NE(scan("num_scan_inputs = 5").find("num_scan_inputs is 5"), std::string::npos) << scan("num_scan_inputs = 5");
  const std::string axes = scan("num_scan_inputs = 1, scan_input_axes = [0, 0]");
  EXPECT_NE(axes.find("one entry per scan input"), std::string::npos) << axes;
}

// UBSan: Clip-6 on int8 converted its default min, -FLT_MAX, to int8. Bounds past an integer type's range are
// its range: nothing is clipped.
TEST(FuzzRegressionsKernels, ClipBoundsPastAnIntegerRangeClipNothing) {
  auto x = TensorValue::fromVector<int8_t>(DataType::Int8, {3}, {-128, 5, 127});
  auto y = runNode(NodeCase("Clip", {}, 6), {x}, "");
  ASSERT_TRUE(y.ok()) << y.error().toString();
  const auto& out = std::get<TensorValue>((*y)[0]);
  EXPECT_EQ(out.data<int8_t>()[0], -128);
  EXPECT_EQ(out.data<int8_t>()[2], 127);
  auto clipped = runNode(NodeCase("Clip", {Attribute::ofFloat("min", 0.0f), Attribute::ofFloat("max", 1e30f)}, 6), {x}, "");
  ASSERT_TRUE(clipped.ok()) << clipped.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*clipped)[0]).data<int8_t>()[0], 0);
  EXPECT_EQ(std::get<TensorValue>((*clipped)[0]).data<int8_t>()[2], 127);
}

// ASan: the reference ConvTranspose read float16 weights as X's float, past their end; a bias of another
// length was read by output channel. Both reference convolutions refuse them.
TEST(FuzzRegressionsKernels, ConvolutionWeightsOfAnotherTypeOrShortBiasAreAnError) {
  auto w16 = TensorValue::allocate(DataType::Float16, {1, 1, 2, 2});
  for (const char* op : {"ConvTranspose", "Conv"}) {
    auto bad = runNode(NodeCase(op), {floats({1, 1, 3, 3}), w16}, "reference");
    ASSERT_FALSE(bad.ok()) << op;
    const std::string error = bad.error().toString();
    EXPECT_NE(error.find("must have X's type"), std::string::npos) << op << ": " << error;
    auto shortBias = runNode(NodeCase(op), {floats({1, 1, 3, 3}), floats({1, 1, 2, 2}), floats({3})}, "reference");
    ASSERT_FALSE(shortBias.ok()) << op;
    EXPECT_NE(shortBias.error().toString().find("one value per output channel"), std::string::npos)
        << op << ": " << shortBias.error().toString();
  }
}

// ASan: ConvInteger read a w_zero_point of another length than one or the output channels past its end.
TEST(FuzzRegressionsKernels, ConvIntegerWeightZeroPointOfAnotherLengthIsAnError) {
  auto bytes = [](Dims dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return TensorValue::fromVector<uint8_t>(DataType::Uint8, std::move(dims), std::vector<uint8_t>(size_t(count), 3));
  };
  const std::string error =
      runError(NodeCase("ConvInteger", {}, 10), {bytes({1, 1, 3, 3}), bytes({4, 1, 2, 2}), bytes({}), bytes({3})});
  EXPECT_NE(error.find("one element or one per output channel (4)"), std::string::npos) << error;
  auto fine = runNode(NodeCase("ConvInteger", {}, 10), {bytes({1, 1, 3, 3}), bytes({4, 1, 2, 2}), bytes({}), bytes({4})}, "");
  ASSERT_TRUE(fine.ok()) << fine.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*fine)[0]).data<int32_t>()[0], 0);  // (3 - 3) * (3 - 3) summed
}

// UBSan: MelWeightMatrix converted a NaN band edge to int64 (an edge below -700 Hz takes the log of a negative
// number). Non-finite scalars and edges below the mel scale are errors; an edge far above the spectrum is fine.
TEST(FuzzRegressionsKernels, MelWeightMatrixRefusesEdgesOffTheMelScale) {
  auto scalar = [](double v) { return TensorValue::fromVector<float>(DataType::Float, {}, {float(v)}); };
  auto count = [](int64_t v) { return TensorValue::fromVector<int64_t>(DataType::Int64, {}, {v}); };
  const NodeCase mel("MelWeightMatrix", {}, 17);
  std::string error = runError(mel, {count(4), count(16), count(8000), scalar(-1000), scalar(4000)});
  EXPECT_NE(error.find("above -700 Hz"), std::string::npos) << error;
  error = runError(mel, {count(4), count(16), count(8000), scalar(0), scalar(std::nan(""))});
  EXPECT_NE(error.find("must be finite"), std::string::npos) << error;
  auto far = runNode(mel, {count(4), count(16), count(8000), scalar(0), scalar(1e30)}, "");
  ASSERT_TRUE(far.ok()) << far.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*far)[0]).dims(), (Dims{9, 4}));
}

// ASan: the reference LayerNormalization read a bias shorter than the normalized size past its end.
TEST(FuzzRegressionsKernels, LayerNormBiasOfAnotherSizeIsAnError) {
  const NodeCase norm("LayerNormalization", {Attribute::ofInt("axis", -1)}, 17);
  auto bad = runNode(norm, {floats({2, 4}), floats({4}), floats({3})}, "reference");
  ASSERT_FALSE(bad.ok());
  const std::string error = bad.error().toString();
  EXPECT_NE(error.find("bias"), std::string::npos) << error;
  EXPECT_NE(error.find("does not match the normalized size 4"), std::string::npos) << error;
  auto fine = runNode(norm, {floats({2, 4}), floats({4}), floats({4})}, "reference");
  EXPECT_TRUE(fine.ok()) << fine.error().toString();
}

// UBSan: Resize with scales used an axis past X's rank (the axes attribute) as an index.
TEST(FuzzRegressionsKernels, ResizeAxesPastTheRankAreAnError) {
  const auto scales = TensorValue::fromVector<float>(DataType::Float, {2}, {2.0f, 2.0f});
  const std::string error = runError(NodeCase("Resize", {Attribute::ofInts("axes", {2, 3})}, 18),
                                     {floats({2, 3}), TensorValue(), scales});
  EXPECT_NE(error.find("axis 2 is out of range"), std::string::npos) << error;
}

// UBSan: tf_crop_and_resize with a NaN in roi converted the NaN source coordinate to an index. A roi that is
// not finite is an error; a finite one still runs.
TEST(FuzzRegressionsKernels, ResizeRoiThatIsNotFiniteIsAnError) {
  const NodeCase resize("Resize", {Attribute::ofString("coordinate_transformation_mode", "tf_crop_and_resize")}, 13);
  const auto sizes = ints({4}, {1, 1, 3, 3});
  const auto bad = TensorValue::fromVector<float>(DataType::Float, {8}, {0, 0, 0, std::nanf(""), 1, 1, 1, 1});
  const std::string error = runError(resize, {floats({1, 1, 4, 4}), bad, TensorValue(), sizes});
  EXPECT_NE(error.find("roi has a value that is not finite"), std::string::npos) << error;
  const auto good = TensorValue::fromVector<float>(DataType::Float, {8}, {0, 0, 0, 0, 1, 1, 1, 1});
  auto fine = runNode(resize, {floats({1, 1, 4, 4}), good, TensorValue(), sizes}, "");
  EXPECT_TRUE(fine.ok()) << fine.error().toString();
}

// ASan: a cubic Resize of [66, 1, 4, 4] to sizes [1, 1, 9, 10] took the leading dim (one tap {0, 1}) as kept,
// counted 66 planes from the input and wrote them into a one-plane output.
TEST(FuzzRegressionsKernels, ResizeThatShrinksALeadingDimMatchesTheReference) {
  const NodeCase resize("Resize", {Attribute::ofString("mode", "cubic")}, 19);
  TensorValue x = floats({66, 1, 4, 4});
  for (int64_t i = 0; i < x.count(); ++i) x.data<float>()[i] = float(i % 7) - 3.0f;
  const std::vector<TensorValue> inputs = {x, TensorValue(), TensorValue(), ints({4}, {1, 1, 9, 10})};
  auto fast = runNode(resize, inputs, "fast");
  auto reference = runNode(resize, inputs, "reference");
  ASSERT_TRUE(fast) << fast.error().toString();
  ASSERT_TRUE(reference) << reference.error().toString();
  const TensorValue& y = std::get<TensorValue>((*fast)[0]);
  ASSERT_EQ(y.dims(), (Dims{1, 1, 9, 10}));
  EXPECT_TRUE(testing::closeTensors(y, std::get<TensorValue>((*reference)[0]), 1e-5, 1e-5));
}

// ASan (with tensor slack poisoned): a Resize of [1, 0, 4, 4] to sizes [1, 1, 4, 4] read its taps past the
// empty input. An empty axis cannot grow; one that stays empty is fine.
TEST(FuzzRegressionsKernels, ResizeOfAnEmptyAxisToValuesIsAnError) {
  const NodeCase resize("Resize", {Attribute::ofString("mode", "linear"), Attribute::ofInt("antialias", 1)}, 19);
  for (const char* variant : {"", "reference"}) {
    auto grown = runNode(resize, {floats({1, 0, 4, 4}), TensorValue(), TensorValue(), ints({4}, {1, 1, 4, 4})},
                         variant);
    ASSERT_FALSE(grown) << variant;
    EXPECT_NE(grown.error().toString().find("from 0 to 1: it has no values to interpolate"), std::string::npos)
        << grown.error().toString();
    auto empty = runNode(resize, {floats({1, 0, 4, 4}), TensorValue(), TensorValue(), ints({4}, {1, 0, 8, 8})},
                         variant);
    ASSERT_TRUE(empty) << empty.error().toString();
    EXPECT_EQ(std::get<TensorValue>((*empty)[0]).dims(), (Dims{1, 0, 8, 8}));
  }
}

// UBSan: ConvTranspose read output_shape's last two entries for two spatial dims when it had one (index -1).
TEST(FuzzRegressionsKernels, ConvTransposeOutputShapeShorterThanTheSpatialRankIsAnError) {
  const std::vector<TensorValue> inputs = {floats({1, 1, 3, 3}), floats({1, 2, 3, 3})};
  std::string error = runError(NodeCase("ConvTranspose", {Attribute::ofInts("output_shape", {8})}, 11), inputs);
  EXPECT_NE(error.find("attribute sizes do not match the spatial rank"), std::string::npos) << error;
  auto y = runNode(NodeCase("ConvTranspose", {Attribute::ofInts("output_shape", {5, 5})}, 11), inputs, "");
  ASSERT_TRUE(y) << y.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*y)[0]).dims(), (Dims{1, 2, 5, 5}));
}

// UBSan: LpPool of int8 took the p-th root of a sum that overflowed to inf and converted it to int8. LpPool is
// defined on floats only; float input still pools.
TEST(FuzzRegressionsKernels, LpPoolOfIntegersIsRefused) {
  const NodeCase lpPool("LpPool", {Attribute::ofInts("kernel_shape", {2, 2}), Attribute::ofInt("p", 2)}, 18);
  const TensorValue bytes = TensorValue::fromVector<int8_t>(DataType::Int8, {1, 1, 2, 2}, {100, 100, 100, 100});
  EXPECT_FALSE(runError(lpPool, {bytes}).empty());
  auto y = runNode(lpPool, {floats({1, 1, 2, 2})}, "");
  ASSERT_TRUE(y) << y.error().toString();
  EXPECT_FLOAT_EQ(std::get<TensorValue>((*y)[0]).data<float>()[0], 2.0f);  // sqrt(4 * 1^2)
}

// Tile of an empty tensor by huge repeats multiplied its output's elements past int64 before the 0. The size
// is checked now, and an empty output whose other dims pass the per-tensor limit is refused (those dims would
// size a later kernel's scratch); modest repeats still give an empty output.
TEST(FuzzRegressionsKernels, TileOfAnEmptyTensorByHugeRepeatsIsRefused) {
  auto out = runNode(NodeCase("Tile", {}, 13), {floats({3, 2, 0}), ints({3}, {int64_t(1) << 62, 1, 1})}, "");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().toString().find("Tile output 0 (float32) asks for an empty tensor of [9223372036854775807, 2, 0]"),
            std::string::npos)
      << out.error().toString();
  auto small = runNode(NodeCase("Tile", {}, 13), {floats({3, 2, 0}), ints({3}, {4, 1, 1})}, "");
  ASSERT_TRUE(small.ok()) << small.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*small)[0]).count(), 0);
  EXPECT_EQ(elementCount({INT64_MAX, 2, 0}), 0);
  EXPECT_EQ(elementCount({int64_t(1) << 40, int64_t(1) << 40}), INT64_MAX);
}

// UBSan: rearranging a tracked value into dims whose product passes int64 overflowed; it is not tracked.
TEST(FuzzRegressionsKernels, RearrangingIntoHugeDimsIsNotTracked) {
  const std::vector<Dim> value = {Dim(1), Dim(2)};
  const int64_t huge = int64_t(1) << 40;
  EXPECT_FALSE(shapes::rearrangeValue(value, {2}, {huge, huge}, [](const std::vector<int64_t>& i) { return i; }));
  auto same = shapes::rearrangeValue(value, {2}, {2}, [](const std::vector<int64_t>& i) { return i; });
  ASSERT_TRUE(same);
  EXPECT_EQ(*same, value);
}

// The output values of reduction `op` of x over `axes` (opset 18: axes are input 1), keepdims 0.
template <class T>
std::vector<T> reduceOver(const char* op, const TensorValue& x, std::vector<int64_t> axes) {
  const int64_t count = int64_t(axes.size());
  auto y = runNode(NodeCase(op, {Attribute::ofInt("keepdims", 0)}, 18), {x, ints({count}, std::move(axes))}, "");
  EXPECT_TRUE(y.ok()) << op << ": " << y.error().toString();
  if (!y.ok()) return {};
  const auto& out = std::get<TensorValue>((*y)[0]);
  EXPECT_EQ(out.dtype(), x.dtype()) << op;
  return std::vector<T>(out.data<T>(), out.data<T>() + out.count());
}

template <class T>
TensorValue integers(DataType dtype, Dims dims, std::vector<T> values) {
  return TensorValue::fromVector<T>(dtype, std::move(dims), values);
}

// UBSan: int8 ReduceLogSum of an empty axis converted log(0) = -inf to int8. An integer log is computed in
// double and saturates: -inf is the type's lowest, NaN (the log of a negative sum) is 0.
TEST(FuzzRegressionsKernels, IntegerLogReductionsOfNothingAreTheLowestValue) {
  constexpr int8_t kInt8Lowest = std::numeric_limits<int8_t>::lowest();
  constexpr int32_t kInt32Lowest = std::numeric_limits<int32_t>::lowest();
  for (const char* op : {"ReduceLogSum", "ReduceLogSumExp"}) {
    EXPECT_EQ(reduceOver<int8_t>(op, integers<int8_t>(DataType::Int8, {2, 0}, {}), {1}),
              (std::vector<int8_t>{kInt8Lowest, kInt8Lowest})) << op;
    EXPECT_EQ(reduceOver<int32_t>(op, integers<int32_t>(DataType::Int32, {2, 0}, {}), {-1}),
              (std::vector<int32_t>{kInt32Lowest, kInt32Lowest})) << op;
  }
  EXPECT_EQ(reduceOver<int8_t>("ReduceLogSum", integers<int8_t>(DataType::Int8, {2, 2}, {-3, 1, 0, 0}), {1}),
            (std::vector<int8_t>{0, kInt8Lowest}));  // log(-2) is NaN: 0
  // exp(5) = 148.4 is no int8: the old sum of exps converted each to int8. log(2 e^5) = 5.69.
  EXPECT_EQ(reduceOver<int8_t>("ReduceLogSumExp", integers<int8_t>(DataType::Int8, {2}, {5, 5}), {0}),
            (std::vector<int8_t>{5}));
  EXPECT_EQ(reduceOver<int32_t>("ReduceLogSumExp", integers<int32_t>(DataType::Int32, {2}, {100, -100}), {0}),
            (std::vector<int32_t>{100}));
}

// UBSan: signed integer overflow in the accumulation of an int32 ReduceSum and an int64 ReduceProd. Sums and
// products wrap as two's complement does.
TEST(FuzzRegressionsKernels, IntegerSumsAndProductsWrap) {
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  auto sums = integers<int32_t>(DataType::Int32, {2, 3}, {max32, 1, 0, 2000000000, 2000000000, 2000000000});
  EXPECT_EQ(reduceOver<int32_t>("ReduceSum", sums, {1}),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 1705032704}));  // 6e9 - 2^32
  EXPECT_EQ(reduceOver<int64_t>("ReduceProd", ints({2, 2}, {3037000500, 3037000500, max64, 3}), {1}),
            (std::vector<int64_t>{-9223372036709301616, max64 - 2}));  // 3037000500^2 - 2^64, 3 (2^63 - 1) - 2^64
  auto low = integers<int32_t>(DataType::Int32, {2}, {std::numeric_limits<int32_t>::min(), 65536});
  EXPECT_EQ(reduceOver<int32_t>("ReduceL1", low, {0}),  // |INT32_MIN| is itself; + 65536
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min() + 65536}));
  EXPECT_EQ(reduceOver<int32_t>("ReduceSumSquare", integers<int32_t>(DataType::Int32, {2}, {65536, 3}), {0}),
            (std::vector<int32_t>{9}));  // 2^32 + 9
  EXPECT_EQ(reduceOver<int64_t>("ReduceSum", ints({2}, {max64, max64}), {0}), (std::vector<int64_t>{-2}));
}

// L2 and Mean of integers did not wrap where their results fit: L2 computes in double (a root of an int32 sum
// of squares that overflowed, UBSan), Mean sums in 64 bits and divides by the count as int64 (as int8, a count
// of 256 was 0: a division by zero).
TEST(FuzzRegressionsKernels, IntegerL2AndMeanAreExactWhereTheyFit) {
  EXPECT_EQ(reduceOver<int32_t>("ReduceL2", integers<int32_t>(DataType::Int32, {2}, {50000, 50000}), {0}),
            (std::vector<int32_t>{70710}));
  EXPECT_EQ(reduceOver<int8_t>("ReduceL2", integers<int8_t>(DataType::Int8, {2}, {12, -12}), {0}),
            (std::vector<int8_t>{16}));
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(reduceOver<int64_t>("ReduceL2", ints({2}, {max64, max64}), {0}), (std::vector<int64_t>{max64}));
  EXPECT_EQ(reduceOver<int8_t>("ReduceMean", integers<int8_t>(DataType::Int8, {256}, std::vector<int8_t>(256, 100)), {0}),
            (std::vector<int8_t>{100}));
  EXPECT_EQ(reduceOver<uint8_t>("ReduceMean", integers<uint8_t>(DataType::Uint8, {2, 0}, {}), {1}),
            (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(reduceOver<int32_t>("ReduceMean", integers<int32_t>(DataType::Int32, {3}, {-7, 0, 0}), {0}),
            (std::vector<int32_t>{-2}));  // truncated toward zero
}

// fuzz_load ("save is not stable"): a graph input's value_info entry whose type has no kind (a denotation
// only). The first save wrote the entry untyped; loading that and saving again wrote it with the input's type.
TEST(FuzzRegressionsKernels, ValueInfoWithAnEmptyTypeSavesStably) {
  onyx::testing::ScratchFolder folder;
  onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(17);
  auto* graph = proto.mutable_graph();
  graph->set_name("g");
  auto* input = graph->add_input();
  input->set_name("x");
  input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* info = graph->add_value_info();
  info->set_name("x");
  info->mutable_type()->set_denotation("TENSOR");
  auto* node = graph->add_node();
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  graph->add_output()->set_name("y");
  std::ofstream(folder / "in.onnx", std::ios::binary) << proto.SerializeAsString();
  auto first = loadModel(folder / "in.onnx");
  ASSERT_TRUE(first.ok()) << first.error().toString();
  ASSERT_TRUE(saveModel(**first, folder / "a.onnx").ok());
  auto second = loadModel(folder / "a.onnx");
  ASSERT_TRUE(second.ok()) << second.error().toString();
  ASSERT_TRUE(saveModel(**second, folder / "b.onnx").ok());
  EXPECT_EQ(onyx::testing::readFile(folder / "a.onnx"), onyx::testing::readFile(folder / "b.onnx"));
}

}  // namespace
}  // namespace onyx::exec
