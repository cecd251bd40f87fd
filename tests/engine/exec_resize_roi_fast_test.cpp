// The fast Resize (ops/nn/resize_fast_cpu.cpp), RoiAlign (ops/detection/roi_align_fast_cpu.cpp) and
// ScatterElements (ops/tensor/scatter_elements_fast_cpu.cpp) variants against their reference kernels: every
// Resize mode and coordinate transformation, exclude_outside, antialias, upsampling and downsampling, odd
// shapes; RoiAlign's avg and max modes, both coordinate transformations, adaptive sampling, regions partly
// outside the map; ScatterElements' axes, reductions and duplicates; and that the executor picks them.
#include <gtest/gtest.h>

#include <random>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

TensorValue floats(Dims dims, std::vector<float> values) {
  TensorValue t = TensorValue::allocate(DataType::Float, std::move(dims));
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

TensorValue int64s(Dims dims, std::vector<int64_t> values) {
  TensorValue t = TensorValue::allocate(DataType::Int64, std::move(dims));
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

Attribute str(const std::string& name, const std::string& v) {
  return Attribute::ofString(name, v);
}

// The variant the executor runs for the node (with profiling on), e.g. "fast".
std::string chosenVariant(const NodeCase& c, const std::vector<TensorValue>& inputs) {
  auto model = singleNodeModel(c, inputs);
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(*model, options);
  EXPECT_TRUE(executor.ok());
  if (!executor.ok()) return "";
  NamedValues named;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty()) named.push_back({"x" + std::to_string(i), inputs[i]});
  auto run = (*executor)->run(named);
  EXPECT_TRUE(run.ok()) << run.error().toString();
  for (const ProfileEvent& e : (*executor)->profiler().events())
    if (e.opType == c.opType) {
      // Instruction-set dispatched kernels end their variant with ":" and the set (e.g. "fast:avx2").
      std::string suffix = e.implementation.empty() ? "" : ":" + e.implementation;
      if (!suffix.empty() && e.variant.ends_with(suffix))
        return e.variant.substr(0, e.variant.size() - suffix.size());
      return e.variant;
    }
  return "";
}

TEST(ExecResizeFast, ModesAndCoordinateTransformsMatchTheReference) {
  const char* coordinateModes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                   "half_pixel_symmetric"};
  struct Shape {
    Dims in;
    std::vector<float> scales;
  };
  const Shape shapes[] = {
      {{1, 3, 7, 5}, {1, 1, 3, 2.5f}},       // upsampling, a fractional scale
      {{2, 2, 16, 13}, {1, 1, 0.5f, 0.4f}},  // downsampling
      {{1, 4, 1, 1}, {1, 1, 6, 5}},          // deeplab's pooled branch: one pixel up to a map
      {{1, 1, 9, 1}, {1, 1, 1, 3}},          // one axis kept
      {{3, 10}, {0.7f, 2.0f}},               // rank 2: the planes are the whole tensor
  };
  uint64_t seed = 1;
  for (const Shape& s : shapes)
    for (const char* mode : {"nearest", "linear", "cubic"})
      for (const char* coord : coordinateModes)
        for (int64_t exclude : {0, 1}) {
          SCOPED_TRACE(describeTensor(DataType::Float, s.in) + " " + mode + " " + coord +
                       " exclude_outside " + std::to_string(exclude));
          NodeCase c("Resize",
                     {str("mode", mode), str("coordinate_transformation_mode", coord),
                      Attribute::ofInt("exclude_outside", exclude)},
                     13);
          TensorValue scales = floats({int64_t(s.scales.size())}, s.scales);
          expectMatchesReference(c, {randomTensor(DataType::Float, s.in, seed++), TensorValue(), scales},
                                 "fast", 1e-5, 1e-6);
        }
}

TEST(ExecResizeFast, NearestRoundingsAndSizesMatchTheReferenceExactly) {
  for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    NodeCase c("Resize", {str("mode", "nearest"), str("nearest_mode", rounding)}, 13);
    TensorValue x = randomTensor(DataType::Float, {1, 2, 5, 7}, 3);
    expectMatchesReference(c, {x, TensorValue(), TensorValue(), int64s({4}, {1, 2, 12, 4})}, "fast", 0, 0);
  }
}

TEST(ExecResizeFast, AntialiasAndCubicCoefficientMatchTheReference) {
  for (const char* mode : {"linear", "cubic"}) {
    NodeCase c(
        "Resize",
        {str("mode", mode), Attribute::ofInt("antialias", 1), Attribute::ofFloat("cubic_coeff_a", -0.5f)},
        18);
    TensorValue x = randomTensor(DataType::Float, {1, 3, 24, 19}, 4);
    expectMatchesReference(c, {x, TensorValue(), floats({4}, {1, 1, 0.3f, 0.55f})}, "fast", 1e-5, 1e-6);
    expectMatchesReference(c, {x, TensorValue(), floats({4}, {1, 1, 1.5f, 0.5f})}, "fast", 1e-5, 1e-6);
  }
}

TEST(ExecResizeFast, OtherCasesGoToTheReference) {
  // A resized channel axis, tf_crop_and_resize's extrapolation, doubles and integers: the reference's
  // answers.
  NodeCase linear("Resize", {str("mode", "linear")}, 13);
  expectMatchesReference(
      linear, {randomTensor(DataType::Float, {1, 3, 4, 4}, 5), TensorValue(), floats({4}, {1, 2, 2, 2})},
      "fast", 0, 0);
  NodeCase crop("Resize",
                {str("mode", "linear"), str("coordinate_transformation_mode", "tf_crop_and_resize"),
                 Attribute::ofFloat("extrapolation_value", 7.0f)},
                13);
  expectMatchesReference(
      crop,
      {randomTensor(DataType::Float, {1, 1, 6, 6}, 6), floats({8}, {0, 0, -0.2f, 0.1f, 1, 1, 1.3f, 0.9f}),
       floats({4}, {1, 1, 1.5f, 1.5f})},
      "fast", 0, 0);
  expectMatchesReference(
      linear, {randomTensor(DataType::Double, {1, 2, 3, 3}, 7), TensorValue(), floats({4}, {1, 1, 2, 2})},
      "fast", 0, 0);
  expectMatchesReference(
      linear, {randomTensor(DataType::Int32, {1, 2, 3, 3}, 8), TensorValue(), floats({4}, {1, 1, 2, 2})},
      "fast", 0, 0);
}

TEST(ExecResizeFast, DeeplabHeadRunsTheFastVariant) {
  NodeCase c("Resize", {str("mode", "linear"), str("coordinate_transformation_mode", "half_pixel")}, 13);
  std::vector<TensorValue> inputs = {randomTensor(DataType::Float, {1, 21, 28, 28}, 9), TensorValue(),
                                     floats({4}, {1, 1, 8, 8})};
  EXPECT_EQ(chosenVariant(c, inputs), "fast");
  expectMatchesReference(c, inputs, "fast", 1e-5, 1e-6);
}

// Regions over a [2, 3, 10, 12] map: inside, partly and wholly outside, degenerate, on the second image.
std::vector<TensorValue> roiInputs(uint64_t seed) {
  TensorValue x = randomTensor(DataType::Float, {2, 3, 10, 12}, seed);
  TensorValue rois = floats(
      {6, 4}, {0, 0, 11, 9, 2.5f, 1.5f, 7.2f, 8.9f, -3, -2, 4, 5, 9, 7, 16, 14, 5, 5, 5, 5, 20, 20, 30, 30});
  return {x, rois, int64s({6}, {0, 1, 0, 1, 0, 1})};
}

TEST(ExecRoiAlignFast, ModesAndSamplingMatchTheReference) {
  uint64_t seed = 20;
  for (const char* mode : {"avg", "max"})
    for (const char* coord : {"half_pixel", "output_half_pixel"})
      for (int64_t sampling : {0, 1, 2, 3})
        for (float scale : {1.0f, 0.5f}) {
          SCOPED_TRACE(std::string(mode) + " " + coord + " sampling " + std::to_string(sampling) + " scale " +
                       std::to_string(scale));
          NodeCase c(
              "RoiAlign",
              {str("mode", mode), str("coordinate_transformation_mode", coord),
               Attribute::ofInt("output_height", 3), Attribute::ofInt("output_width", 4),
               Attribute::ofInt("sampling_ratio", sampling), Attribute::ofFloat("spatial_scale", scale)},
              16);
          expectMatchesReference(c, roiInputs(seed++), "fast", 1e-5, 1e-6);
        }
  // Opset 10: no coordinate_transformation_mode, output_half_pixel behaviour.
  NodeCase old("RoiAlign", {Attribute::ofInt("output_height", 2), Attribute::ofInt("output_width", 2)}, 10);
  expectMatchesReference(old, roiInputs(40), "fast", 1e-5, 1e-6);
}

TEST(ExecRoiAlignFast, BadBatchIndexIsTheReferencesError) {
  std::vector<TensorValue> inputs = roiInputs(41);
  inputs[2] = int64s({6}, {0, 1, 0, 2, 0, 1});
  NodeCase c("RoiAlign", {}, 16);
  auto fast = runNode(c, inputs, "fast");
  ASSERT_FALSE(fast.ok());
  EXPECT_NE(fast.error().message.find("batch index 2 is out of range"), std::string::npos)
      << fast.error().message;
}

TEST(ExecRoiAlignFast, FasterRcnnHeadRunsTheFastVariant) {
  NodeCase c("RoiAlign",
             {Attribute::ofInt("output_height", 7), Attribute::ofInt("output_width", 7),
              Attribute::ofInt("sampling_ratio", 2), Attribute::ofFloat("spatial_scale", 0.0625f)},
             16);
  TensorValue rois = TensorValue::allocate(DataType::Float, {64, 4});
  for (int64_t n = 0; n < 64; ++n) {
    float x = float(n * 5 % 300), y = float(n * 11 % 300);
    float box[4] = {x, y, x + 10 + float(n), y + 20 + float(n % 7)};
    std::copy(box, box + 4, rois.data<float>() + n * 4);
  }
  std::vector<TensorValue> inputs = {randomTensor(DataType::Float, {1, 16, 20, 20}, 42), rois,
                                     TensorValue::allocate(DataType::Int64, {64})};
  std::fill(inputs[2].data<int64_t>(), inputs[2].data<int64_t>() + 64, 0);
  EXPECT_EQ(chosenVariant(c, inputs), "fast");
  expectMatchesReference(c, inputs, "fast", 1e-5, 1e-6);
}

// Indices in [-len, len) along `axis` (duplicates included), for an index tensor of `dims`.
TensorValue scatterIndices(Dims dims, int64_t len, uint64_t seed) {
  TensorValue t = TensorValue::allocate(DataType::Int64, std::move(dims));
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.count(); ++i) t.data<int64_t>()[i] = int64_t(rng() % uint64_t(2 * len)) - len;
  return t;
}

TEST(ExecScatterElementsFast, AxesReductionsAndTypesMatchTheReference) {
  uint64_t seed = 50;
  for (const char* reduction : {"none", "add", "mul", "max", "min"})
    for (int64_t axis : {0, 1, 2, -1}) {
      SCOPED_TRACE(std::string(reduction) + " axis " + std::to_string(axis));
      Dims data = {4, 5, 6}, index = {3, 4, 5};
      int64_t len = data[size_t(axis < 0 ? axis + 3 : axis)];
      index[size_t(axis < 0 ? axis + 3 : axis)] = 7;  // longer than the data along the axis: duplicates
      NodeCase c("ScatterElements", {Attribute::ofInt("axis", axis), str("reduction", reduction)}, 18);
      for (DataType type : {DataType::Float, DataType::Int64, DataType::Float16})
        expectMatchesReference(c,
                               {randomTensor(type, data, seed), scatterIndices(index, len, seed + 1),
                                randomTensor(type, index, seed + 2)},
                               "fast", 0, 0);
      seed += 3;
    }
  NodeCase old("Scatter", {Attribute::ofInt("axis", 1)}, 9);
  expectMatchesReference(old,
                         {randomTensor(DataType::Float, {3, 4}, 60), scatterIndices({2, 3}, 4, 61),
                          randomTensor(DataType::Float, {2, 3}, 62)},
                         "fast", 0, 0);
}

TEST(ExecScatterElementsFast, OutOfRangeIndexIsAnError) {
  NodeCase c("ScatterElements", {Attribute::ofInt("axis", 1)}, 18);
  auto result = runNode(c,
                        {randomTensor(DataType::Float, {2, 3}, 63), int64s({1, 2}, {0, 3}),
                         randomTensor(DataType::Float, {1, 2}, 64)},
                        "fast");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("an index is out of range"), std::string::npos)
      << result.error().message;
  std::vector<TensorValue> inputs = {randomTensor(DataType::Float, {2, 3}, 65), int64s({1, 2}, {2, -3}),
                                     randomTensor(DataType::Float, {1, 2}, 66)};
  EXPECT_EQ(chosenVariant(c, inputs), "fast");
}

}  // namespace
}  // namespace onyx::exec::testing
