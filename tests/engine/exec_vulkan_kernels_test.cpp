// Vulkan data-movement, GEMM, convolution, pooling, normalization and reduction kernels against the CPU
// reference on the Vulkan device, with odd shapes.
#include <cmath>

#include "exec_vulkan_test_util.h"

namespace onyx::exec::testing {
namespace {

TensorValue ints(Dims dims, std::vector<int64_t> values) {
  return TensorValue::fromVector<int64_t>(DataType::Int64, std::move(dims), values);
}

TEST(VulkanKernels, ViewsAndCopiesMatchReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 3, 5, 7}, 1);
  expectVulkanMatchesReference(NodeCase("Transpose", {intsAttr("perm", {2, 0, 3, 1})}), {x}, 0, 0);
  expectVulkanMatchesReference(NodeCase("Transpose"), {x}, 0, 0);
  expectVulkanMatchesReference({"Reshape"}, {x, ints({3}, {6, -1, 7})}, 0, 0);
  expectVulkanMatchesReference(NodeCase("Flatten", {intAttr("axis", 2)}), {x}, 0, 0);
  expectVulkanMatchesReference({"Unsqueeze"}, {x, ints({2}, {0, -1})}, 0, 0);
  expectVulkanMatchesReference({"Squeeze"}, {randomTensor(DataType::Float, {1, 4, 1, 3}, 2), ints({1}, {2})}, 0, 0);
  // Slice: negative steps, clamped ends, an axis subset.
  expectVulkanMatchesReference({"Slice"}, {x, ints({2}, {4, 1}), ints({2}, {-100, 6}), ints({2}, {2, -1}),
                                           ints({2}, {-2, 2})},
                               0, 0);
  expectVulkanMatchesReference({"Expand"}, {randomTensor(DataType::Float, {3, 1}, 3), ints({3}, {2, 3, 4})}, 0, 0);
  expectVulkanMatchesReference(NodeCase("Concat", {intAttr("axis", -2)}),
                               {x, randomTensor(DataType::Float, {2, 3, 2, 7}, 4), randomTensor(DataType::Float, {2, 3, 1, 7}, 5)},
                               0, 0);
  expectVulkanMatchesReference(NodeCase("Split", {intAttr("axis", 3)}, 17, 3), {x, ints({3}, {2, 4, 1})}, 0, 0);
  expectVulkanMatchesReference(NodeCase("Gather", {intAttr("axis", 1)}), {x, ints({2, 2}, {2, -1, 0, 0})}, 0, 0);
}

TEST(VulkanKernels, PadModesMatchReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 3, 4}, 7);
  TensorValue pads = ints({6}, {0, 2, 1, 1, 3, 2});
  for (const char* mode : {"constant", "edge", "reflect", "wrap"}) {
    SCOPED_TRACE(mode);
    expectVulkanMatchesReference(NodeCase("Pad", {stringAttr("mode", mode)}, 19),
                                 {x, pads, TensorValue::scalar<float>(DataType::Float, 1.5f)}, 0, 0);
  }
}

TEST(VulkanKernels, WhereAndCastMatchReference) {
  ONYX_REQUIRE_VULKAN();
  expectVulkanMatchesReference({"Where"}, {randomTensor(DataType::Bool, {3, 1, 5}, 1), randomTensor(DataType::Float, {4, 5}, 2),
                                           randomTensor(DataType::Float, {3, 4, 1}, 3)},
                               0, 0);
  std::string backend;
  TensorValue x = randomTensor(DataType::Float, {5, 9}, 4);
  auto probe = runOnVulkan(NodeCase("Cast", {intAttr("to", int64_t(DataType::Float16))}), {x}, &backend);
  ASSERT_TRUE(probe.ok());
  if (backend == "vulkan") {
    expectVulkanMatchesReference(NodeCase("Cast", {intAttr("to", int64_t(DataType::Float16))}), {x}, 0, 0);
    expectVulkanMatchesReference(NodeCase("Cast", {intAttr("to", int64_t(DataType::Float))}),
                                 {randomTensor(DataType::Float16, {5, 9}, 5)}, 0, 0);
  }
}

TEST(VulkanKernels, MatMulAndGemmMatchReference) {
  ONYX_REQUIRE_VULKAN();
  struct Case {
    Dims a, b;
  };
  const Case cases[] = {{{33, 17}, {17, 45}}, {{1, 64}, {64, 1}}, {{2, 3, 5, 7}, {7, 9}}, {{7}, {2, 7, 3}},
                        {{4, 7}, {7}},        {{3, 1, 6, 8}, {1, 2, 8, 5}}, {{5, 0}, {0, 3}}};
  uint64_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(describeTensor(DataType::Float, c.a) + " x " + describeTensor(DataType::Float, c.b));
    expectVulkanMatchesReference({"MatMul"}, {randomTensor(DataType::Float, c.a, seed++), randomTensor(DataType::Float, c.b, seed++)},
                                 1e-4, 1e-4);
  }
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      NodeCase gemm("Gemm", {intAttr("transA", ta), intAttr("transB", tb), floatAttr("alpha", 0.5f), floatAttr("beta", 2.0f)});
      Dims a = ta ? Dims{19, 13} : Dims{13, 19}, b = tb ? Dims{37, 19} : Dims{19, 37};
      expectVulkanMatchesReference(gemm, {randomTensor(DataType::Float, a, seed++), randomTensor(DataType::Float, b, seed++),
                                          randomTensor(DataType::Float, {37}, seed++)},
                                   1e-4, 1e-4);
      expectVulkanMatchesReference(gemm, {randomTensor(DataType::Float, a, seed++), randomTensor(DataType::Float, b, seed++),
                                          randomTensor(DataType::Float, {13, 1}, seed++)},
                                   1e-4, 1e-4);
    }
}

// The register-tiled GEMM's paths: vec4 loads where rows are 16-byte aligned (with K and N not multiples of the
// tile, so the scalar edge runs too), transposed A and B read along their contiguous direction, and the three
// tile heights (2, 4 and 8 rows per thread, chosen by the problem's size).
TEST(VulkanKernels, TiledGemmPathsMatchReference) {
  ONYX_REQUIRE_VULKAN();
  uint64_t seed = 100;
  // Thin problems with a long K ([2, 600] x [600, 3], [1, 2048] x [2048, 10]) split K across groups.
  const std::pair<Dims, Dims> matmuls[] = {{{2, 600}, {600, 3}},        {{1, 2048}, {2048, 10}},
                                           {{8, 16}, {16, 12}},          {{67, 36}, {36, 70}},
                                           {{3, 40, 20}, {20, 68}},      {{130, 28}, {28, 132}},
                                           {{64, 130, 8}, {8, 70}},      {{2, 1, 33, 44}, {3, 44, 65}},
                                           // Batches over a 2-D B fold into the rows of one product.
                                           {{197, 1, 40}, {40, 70}},     {{3, 5, 2, 20}, {20, 9}}};
  for (const auto& [a, b] : matmuls) {
    SCOPED_TRACE(describeTensor(DataType::Float, a) + " x " + describeTensor(DataType::Float, b));
    expectVulkanMatchesReference({"MatMul"}, {randomTensor(DataType::Float, a, seed++), randomTensor(DataType::Float, b, seed++)},
                                 1e-4, 1e-4);
  }
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE("transA " + std::to_string(ta) + " transB " + std::to_string(tb));
      NodeCase gemm("Gemm", {intAttr("transA", ta), intAttr("transB", tb)});
      Dims a = ta ? Dims{36, 72} : Dims{72, 36}, b = tb ? Dims{68, 36} : Dims{36, 68};
      expectVulkanMatchesReference(gemm, {randomTensor(DataType::Float, a, seed++), randomTensor(DataType::Float, b, seed++),
                                          randomTensor(DataType::Float, {68}, seed++)},
                                   1e-4, 1e-4);
      NodeCase scaled("Gemm", {intAttr("transA", ta), intAttr("transB", tb), floatAttr("alpha", 0.5f), floatAttr("beta", 2.0f)});
      Dims sa = ta ? Dims{1030, 3} : Dims{3, 1030}, sb = tb ? Dims{5, 1030} : Dims{1030, 5};  // split K
      expectVulkanMatchesReference(scaled, {randomTensor(DataType::Float, sa, seed++), randomTensor(DataType::Float, sb, seed++),
                                            randomTensor(DataType::Float, {3, 1}, seed++)},
                                   1e-4, 1e-4);
    }
}

TEST(VulkanKernels, ConvolutionsMatchReference) {
  ONYX_REQUIRE_VULKAN();
  struct Case {
    Dims x, w;
    std::vector<Attribute> attrs;
    bool bias;
  };
  const Case cases[] = {
      {{1, 3, 9, 11}, {8, 3, 3, 3}, {intsAttr("pads", {1, 1, 1, 1})}, true},                                   // direct
      {{2, 16, 10, 9}, {24, 16, 3, 3}, {intsAttr("strides", {2, 1}), intsAttr("pads", {1, 0, 2, 1})}, true},  // GEMM
      {{1, 32, 8, 8}, {32, 1, 3, 3}, {intAttr("group", 32), intsAttr("pads", {1, 1, 1, 1})}, true},           // depthwise
      {{1, 16, 7, 7}, {16, 8, 1, 1}, {intAttr("group", 2)}, false},                                            // grouped GEMM
      {{1, 12, 13, 13}, {16, 12, 3, 3}, {intsAttr("dilations", {2, 2}), stringAttr("auto_pad", "SAME_UPPER")}, true},
      {{2, 8, 20}, {12, 8, 5}, {intsAttr("strides", {3}), intsAttr("pads", {2, 2})}, true},                   // 1-D
      {{2, 8, 4, 6}, {12, 8, 1, 1}, {}, true},                          // pointwise, vec4 reads of the input
      {{1, 6, 5, 5}, {10, 6, 1, 1}, {}, false},                         // pointwise, scalar reads
      {{1, 4, 9, 9}, {8, 1, 3, 3}, {intAttr("group", 4)}, true},        // depthwise with a channel multiplier
      {{2, 6, 11, 13}, {6, 1, 5, 5}, {intAttr("group", 6), intsAttr("strides", {2, 2}), intsAttr("pads", {2, 1, 2, 1})}, true},
      {{16, 4, 32, 32}, {128, 4, 1, 1}, {}, true},                      // 8 rows per thread
      {{1, 64, 4, 4}, {16, 64, 3, 3}, {intsAttr("pads", {1, 1, 1, 1})}, true},  // split K: few tiles, long K
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(describeTensor(DataType::Float, c.x) + " * " + describeTensor(DataType::Float, c.w));
    std::vector<TensorValue> inputs = {randomTensor(DataType::Float, c.x, seed++), randomTensor(DataType::Float, c.w, seed++)};
    if (c.bias) inputs.push_back(randomTensor(DataType::Float, {c.w[0]}, seed++));
    expectVulkanMatchesReference(NodeCase("Conv", c.attrs), inputs, 1e-4, 1e-4);
  }
  expectVulkanMatchesReference(
      NodeCase("ConvTranspose", {intsAttr("strides", {2, 2}), intsAttr("pads", {1, 0, 1, 1}), intsAttr("output_padding", {1, 1})}),
      {randomTensor(DataType::Float, {1, 4, 5, 6}, 40), randomTensor(DataType::Float, {4, 3, 3, 3}, 41),
       randomTensor(DataType::Float, {3}, 42)},
      1e-4, 1e-4);
  expectVulkanMatchesReference(NodeCase("ConvTranspose", {intAttr("group", 2), intsAttr("strides", {3})}),
                               {randomTensor(DataType::Float, {2, 4, 7}, 43), randomTensor(DataType::Float, {4, 2, 4}, 44)},
                               1e-4, 1e-4);
}

TEST(VulkanKernels, PoolingMatchesReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 3, 11, 10}, 1);
  expectVulkanMatchesReference(NodeCase("MaxPool", {intsAttr("kernel_shape", {3, 3}), intsAttr("strides", {2, 2}),
                                                    intsAttr("pads", {1, 1, 1, 1})}),
                               {x}, 0, 0);
  expectVulkanMatchesReference(NodeCase("MaxPool", {intsAttr("kernel_shape", {2, 3}), intsAttr("dilations", {2, 1}),
                                                    intAttr("ceil_mode", 1), intsAttr("strides", {2, 2})}),
                               {x}, 0, 0);
  for (int countPad = 0; countPad < 2; ++countPad)
    expectVulkanMatchesReference(NodeCase("AveragePool", {intsAttr("kernel_shape", {3, 2}), intsAttr("pads", {1, 0, 2, 1}),
                                                          intAttr("count_include_pad", countPad)}),
                                 {x}, 1e-5, 1e-6);
  expectVulkanMatchesReference({"GlobalAveragePool"}, {x}, 1e-5, 1e-6);
  expectVulkanMatchesReference({"GlobalMaxPool"}, {randomTensor(DataType::Float, {2, 5, 17}, 2)}, 0, 0);
}

// Global pooling's lanes per plane follow the plane size: one lane for 1x1 planes, a few for 7x7 heads with
// many channels (several planes a group), a whole group for large planes, with vec4 reads where the plane
// size is a multiple of 4 and scalar reads where not; and spatial ranks other than 2.
TEST(VulkanKernels, GlobalPoolingOverTinyAndHugePlanesMatchesReference) {
  ONYX_REQUIRE_VULKAN();
  const Dims shapes[] = {{1, 300, 1, 1}, {2, 37, 7, 7},    {1, 3, 130, 97}, {1, 5, 112, 112},
                         {2, 9, 1030},   {1, 2, 3, 4, 5},   {3, 700, 2, 3}};
  uint64_t seed = 60;
  for (const Dims& dims : shapes) {
    SCOPED_TRACE(describeTensor(DataType::Float, dims));
    TensorValue x = randomTensor(DataType::Float, dims, seed++);
    expectVulkanMatchesReference({"GlobalAveragePool"}, {x}, 1e-4, 1e-6);
    expectVulkanMatchesReference({"GlobalMaxPool"}, {x}, 0, 0);
  }
}

TEST(VulkanKernels, NormalizationsAndSoftmaxMatchReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 5, 3, 7}, 1);
  expectVulkanMatchesReference({"BatchNormalization"}, {x, randomTensor(DataType::Float, {5}, 2), randomTensor(DataType::Float, {5}, 3),
                                                        randomTensor(DataType::Float, {5}, 4), randomTensor(DataType::Float, {5}, 5, 0.1f, 2)},
                               1e-4, 1e-5);
  expectVulkanMatchesReference(NodeCase("LayerNormalization", {intAttr("axis", -2)}),
                               {x, randomTensor(DataType::Float, {3, 7}, 6), randomTensor(DataType::Float, {3, 7}, 7)}, 1e-4, 1e-5);
  expectVulkanMatchesReference({"InstanceNormalization"}, {x, randomTensor(DataType::Float, {5}, 8), randomTensor(DataType::Float, {5}, 9)},
                               1e-4, 1e-5);
  for (int64_t axis : {-1, 1, 0}) {
    expectVulkanMatchesReference(NodeCase("Softmax", {intAttr("axis", axis)}), {x}, 1e-5, 1e-6);
    expectVulkanMatchesReference(NodeCase("LogSoftmax", {intAttr("axis", axis)}), {x}, 1e-5, 1e-5);
  }
  expectVulkanMatchesReference(NodeCase("Softmax", {intAttr("axis", 1)}, 11), {x}, 1e-5, 1e-6);  // flattened
}

TEST(VulkanKernels, ReductionsMatchReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {3, 4, 5, 2}, 1, 0.1f, 2);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    SCOPED_TRACE(op);
    expectVulkanMatchesReference(NodeCase(op, {intAttr("keepdims", 0)}, 18), {x, ints({2}, {1, -1})}, 1e-4, 1e-5);
    expectVulkanMatchesReference(NodeCase(op, {}, 18), {x}, 1e-4, 1e-5);  // all axes
    expectVulkanMatchesReference(NodeCase(op, {intsAttr("axes", {0, 2})}, 13), {x}, 1e-4, 1e-5);
  }
}

// Rows long enough for a workgroup per row (LayerNorm, InstanceNorm, Softmax along the last axis) and long
// reductions, contiguous and strided, with workgroup reductions: rows longer than the group, shorter than it,
// and not a multiple of it.
TEST(VulkanKernels, WorkgroupPerRowKernelsMatchReference) {
  ONYX_REQUIRE_VULKAN();
  for (Dims dims : {Dims{5, 1500}, Dims{3, 40}, Dims{2, 1, 257}}) {
    SCOPED_TRACE(describeTensor(DataType::Float, dims));
    TensorValue x = randomTensor(DataType::Float, dims, 1);
    int64_t len = dims.back();
    expectVulkanMatchesReference({"LayerNormalization"}, {x, randomTensor(DataType::Float, {len}, 2), randomTensor(DataType::Float, {len}, 3)},
                                 1e-4, 1e-5);
    expectVulkanMatchesReference({"LayerNormalization"}, {x, randomTensor(DataType::Float, {len}, 4)}, 1e-4, 1e-5);
    expectVulkanMatchesReference({"Softmax"}, {x}, 1e-5, 1e-6);
    expectVulkanMatchesReference({"LogSoftmax"}, {x}, 1e-5, 1e-5);
  }
  expectVulkanMatchesReference({"InstanceNormalization"}, {randomTensor(DataType::Float, {2, 3, 20, 30}, 5), randomTensor(DataType::Float, {3}, 6),
                                                           randomTensor(DataType::Float, {3}, 7)},
                               1e-4, 1e-5);
  TensorValue rows = randomTensor(DataType::Float, {4, 3000}, 8, 0.999f, 1.001f);
  TensorValue columns = randomTensor(DataType::Float, {600, 5}, 9, 0.99f, 1.01f);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    SCOPED_TRACE(op);
    expectVulkanMatchesReference(NodeCase(op, {intAttr("keepdims", 0)}, 18), {rows, ints({1}, {-1})}, 1e-4, 1e-5);
    expectVulkanMatchesReference(NodeCase(op, {}, 18), {columns, ints({1}, {0})}, 1e-4, 1e-5);
  }
}

TensorValue floats(std::vector<float> values) {
  TensorValue t = TensorValue::allocate(DataType::Float, {int64_t(values.size())});
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

TEST(VulkanKernels, ResizeMatchesReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 3, 5, 7}, 1);
  TensorValue noRoi;
  TensorValue up = floats({1, 1, 2, 1.5f}), down = floats({1, 1, 0.6f, 0.45f});
  for (const char* coord : {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"}) {
    for (const TensorValue& scales : {up, down}) {
      expectVulkanMatchesReference(NodeCase("Resize", {stringAttr("mode", "linear"),
                                                       stringAttr("coordinate_transformation_mode", coord)}),
                                   {x, noRoi, scales}, 1e-5, 1e-6);
      expectVulkanMatchesReference(NodeCase("Resize", {stringAttr("mode", "cubic"),
                                                       stringAttr("coordinate_transformation_mode", coord)}),
                                   {x, noRoi, scales}, 1e-5, 1e-5);
    }
  }
  for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
    expectVulkanMatchesReference(NodeCase("Resize", {stringAttr("mode", "nearest"), stringAttr("nearest_mode", rounding),
                                                     stringAttr("coordinate_transformation_mode", "asymmetric")}),
                                 {x, noRoi, up}, 0, 0);
}

// The node runs on the CPU at run time (the profile says "cpu-fallback") and matches the reference kernel.
void expectCpuFallbackMatchesReference(const NodeCase& c, const std::vector<TensorValue>& inputs, double rtol,
                                       double atol) {
  std::string backend;
  auto gpu = runOnVulkan(c, inputs, &backend);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  EXPECT_EQ(backend, "cpu-fallback");
  auto ref = runNode(c, inputs, "reference");
  ASSERT_TRUE(ref.ok()) << ref.error().toString();
  EXPECT_TRUE(closeTensors(std::get<TensorValue>((*gpu)[0]), std::get<TensorValue>((*ref)[0]), rtol, atol));
}

// A leading dim resized to 1 whose single tap is {0, 1} looked kept: the shader then read output plane
// (1, 0) from input plane 1 instead of 3 (x [2, 3, ...] to [2, 1, ...]). It now falls back to the CPU.
TEST(VulkanKernels, ResizeThatShrinksALeadingDimMatchesReference) {
  ONYX_REQUIRE_VULKAN();
  NodeCase c("Resize", {stringAttr("mode", "nearest"), stringAttr("coordinate_transformation_mode", "asymmetric")});
  expectCpuFallbackMatchesReference(c, {randomTensor(DataType::Float, {2, 3, 2, 2}, 4), TensorValue(), TensorValue(),
                                        TensorValue::fromVector<int64_t>(DataType::Int64, {4}, {2, 1, 4, 4})},
                                    0, 0);
}

TEST(VulkanKernels, RunTimeFallbacksAreVisible) {
  ONYX_REQUIRE_VULKAN();
  // Antialiased downsampling needs more than 4 taps per output: the Vulkan node hands it to the CPU at run
  // time, the result is still right, and the profile names the fallback.
  NodeCase c("Resize", {stringAttr("mode", "linear"), intAttr("antialias", 1)}, 18);
  expectCpuFallbackMatchesReference(
      c, {randomTensor(DataType::Float, {1, 2, 12, 12}, 3), TensorValue(), floats({1, 1, 0.25f, 0.25f})}, 1e-5, 1e-6);
}

TEST(VulkanKernels, UnsupportedInputsFallBackToTheCpu) {
  ONYX_REQUIRE_VULKAN();
  // Double tensors are not Vulkan tensors: the scheduler gives the node to the CPU, and results still match.
  auto model = singleNodeModel({"Add"}, {randomTensor(DataType::Double, {3}, 1), randomTensor(DataType::Double, {3}, 2)});
  ExecutorOptions options;
  options.backends = {"vulkan"};
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  EXPECT_EQ((*executor)->assignments().at(0).backend, "cpu");
  EXPECT_EQ((*executor)->transferCount(), 0);
}

}  // namespace
}  // namespace onyx::exec::testing

namespace onyx::exec::testing {
namespace {

TEST(VulkanDevice, SelectionByIndexNameAndBadName) {
  ONYX_REQUIRE_VULKAN();
  auto devices = vulkan::probeDevice("0");
  ASSERT_TRUE(devices.ok()) << devices.error().toString();
  auto byName = vulkan::probeDevice(devices->substr(0, 4));
  ASSERT_TRUE(byName.ok()) << byName.error().toString();
  EXPECT_EQ(*byName, *devices);
  auto missing = vulkan::probeDevice("no-such-device-name");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().where, "--device");
  EXPECT_NE(missing.error().message.find("no Vulkan device matches 'no-such-device-name'"), std::string::npos)
      << missing.error().message;
}

TEST(VulkanDevice, ChainedNodesStayOnTheDeviceWithTwoTransfers) {
  ONYX_REQUIRE_VULKAN();
  // x -> Relu -> Exp -> Neg -> y: one upload, one download, no round trip between the three nodes.
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim(4), Dim(5)}));
  Value* v = x;
  int k = 0;
  for (const char* op : {"Relu", "Exp", "Neg"}) {
    Rewriter::NodeSpec spec;
    spec.opType = op;
    spec.name = op;
    spec.inputs = {v};
    spec.outputNames = {"v" + std::to_string(k++)};
    v = rw.addNode(g, spec)->outputs()[0];
  }
  rw.setGraphOutputs(g, {v});
  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  EXPECT_EQ((*executor)->transferCount(), 2);
  TensorValue input = randomTensor(DataType::Float, {4, 5}, 3);
  auto out = (*executor)->run({{"x", input}});
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const TensorValue& y = std::get<TensorValue>((*out)[0]);
  for (int64_t i = 0; i < y.count(); ++i)
    EXPECT_FLOAT_EQ(y.data<float>()[i], -std::exp(std::max(0.0f, input.data<float>()[i])));
  // Five events (2 transfers + 3 nodes), each with a device time.
  const auto& events = (*executor)->profiler().events();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].opType, "Transfer");
  EXPECT_EQ(events[1].backend, "vulkan");
  EXPECT_EQ(events[4].opType, "Transfer");
}

}  // namespace
}  // namespace onyx::exec::testing
