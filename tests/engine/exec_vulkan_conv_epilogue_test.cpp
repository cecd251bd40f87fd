// The Vulkan Conv computes the element-wise nodes after it in its output pass as the CPU's Conv does (Relu,
// Clip, SiLU, the residual Add): one device event for the chain, the fused nodes marked "fused into", and the
// outputs equal to the CPU's.
#include <gtest/gtest.h>

#include <random>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_vulkan_test_util.h"
#include "support/named_text_model.h"

namespace onyx::exec {
namespace {

// A dense Conv then Relu, a Conv whose output a residual Add and Relu follow, a depthwise Conv then Clip,
// and a pointwise Conv then SiLU.
const char* kConvChains = R"(
<ir_version: 8, opset_import: ["" : 17]>
chains (float[2, 8, 9, 10] x, float[8, 8, 3, 3] w1, float[8] b1, float[8, 8, 3, 3] w2, float[8, 1, 3, 3] wd,
        float[12, 8, 1, 1] wp) => (float[2, 12, 9, 10] y) {
  lo = Constant <value = float {-0.25}> ()
  hi = Constant <value = float {0.75}> ()
  c1 = Conv <pads = [1, 1, 1, 1], name = "conv1"> (x, w1, b1)
  r1 = Relu (c1)
  c2 = Conv <pads = [1, 1, 1, 1], name = "conv2"> (r1, w2)
  s2 = Add (c2, r1)
  r2 = Relu (s2)
  d = Conv <group = 8, pads = [1, 1, 1, 1], name = "depthwise"> (r2, wd, b1)
  k = Clip (d, lo, hi)
  p = Conv <name = "pointwise"> (k, wp)
  g = Sigmoid (p)
  y = Mul (p, g)
}
)";

TensorValue randomTensor(Dims dims, std::mt19937& rng, float lo, float hi) {
  TensorValue t = TensorValue::allocate(DataType::Float, std::move(dims));
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

TEST(VulkanConvEpilogue, ConvChainsRunAsOneDeviceStepEachAndMatchTheCpu) {
  ONYX_REQUIRE_VULKAN();
  auto model = onyx::testing::parseNamedModelText(kConvChains);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  std::mt19937 rng(11);
  NamedValues inputs = {{"x", randomTensor({2, 8, 9, 10}, rng, -1, 1)},   {"w1", randomTensor({8, 8, 3, 3}, rng, -0.3f, 0.3f)},
                        {"b1", randomTensor({8}, rng, -0.5f, 0.5f)},       {"w2", randomTensor({8, 8, 3, 3}, rng, -0.3f, 0.3f)},
                        {"wd", randomTensor({8, 1, 3, 3}, rng, -0.5f, 0.5f)}, {"wp", randomTensor({12, 8, 1, 1}, rng, -0.5f, 0.5f)}};
  auto cpu = Executor::create(**model);
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto expected = (*cpu)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().toString();

  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto gpu = Executor::create(**model, options);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  auto outputs = (*gpu)->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  Comparison c = compareValues((*outputs)[0], (*expected)[0], Tolerance{1e-4, 1e-5});
  EXPECT_TRUE(c.ok) << c.reason;

  std::map<std::string, std::string> variants;
  int fusedAway = 0;
  for (const ProfileEvent& e : (*gpu)->profiler().events()) {
    if (e.opType == "Conv") variants[e.name] = e.variant;
    if (e.variant.rfind("fused into", 0) == 0) {
      ++fusedAway;
      EXPECT_EQ(e.backend, "vulkan") << e.opType;
      EXPECT_EQ(e.durationNs, 0) << e.opType << ": the device time belongs to the Conv's event";
    }
  }
  EXPECT_EQ(variants["conv1"], "vulkan+Relu");
  EXPECT_EQ(variants["conv2"], "vulkan+Add+Relu");
  EXPECT_EQ(variants["depthwise"], "vulkan+Clip");
  EXPECT_EQ(variants["pointwise"], "vulkan+Sigmoid+Mul");
  EXPECT_EQ(fusedAway, 6);
}

// A Conv with few output tiles and a long window (64 x 3 x 3) splits K across groups; the pass that adds the
// parts applies bias, the residual Add and Relu.
const char* kSplitConv = R"(
<ir_version: 8, opset_import: ["" : 17]>
split (float[1, 64, 5, 4] x, float[64, 64, 3, 3] w, float[64] b) => (float[1, 64, 5, 4] y) {
  c = Conv <pads = [1, 1, 1, 1], name = "conv"> (x, w, b)
  a = Add (x, c)
  y = Relu (a)
}
)";

TEST(VulkanConvEpilogue, ASplitKConvAppliesItsEpilogueWhenAddingTheParts) {
  ONYX_REQUIRE_VULKAN();
  auto model = onyx::testing::parseNamedModelText(kSplitConv);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  std::mt19937 rng(13);
  NamedValues inputs = {{"x", randomTensor({1, 64, 5, 4}, rng, -1, 1)},
                        {"w", randomTensor({64, 64, 3, 3}, rng, -0.1f, 0.1f)},
                        {"b", randomTensor({64}, rng, -0.5f, 0.5f)}};
  auto cpu = Executor::create(**model);
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto expected = (*cpu)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto gpu = Executor::create(**model, options);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  auto outputs = (*gpu)->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  Comparison c = compareValues((*outputs)[0], (*expected)[0], Tolerance{1e-4, 1e-5});
  EXPECT_TRUE(c.ok) << c.reason;
  std::string variant;
  for (const ProfileEvent& e : (*gpu)->profiler().events())
    if (e.opType == "Conv") variant = e.variant;
  EXPECT_EQ(variant, "vulkan+Add+Relu");
}

// A residual that only broadcasts to the Conv's output: the Conv declines to fuse at run time and the Add and
// Relu run after it as their own device kernels.
const char* kBroadcastResidual = R"(
<ir_version: 8, opset_import: ["" : 17]>
broadcast (float[1, 4, 6, 6] x, float[4, 4, 3, 3] w, float[4, 1, 1] s) => (float[1, 4, 6, 6] y) {
  c = Conv <pads = [1, 1, 1, 1], name = "conv"> (x, w)
  a = Add (c, s)
  y = Relu (a)
}
)";

TEST(VulkanConvEpilogue, AnEpilogueTheConvDeclinesRunsAsDeviceKernels) {
  ONYX_REQUIRE_VULKAN();
  auto model = onyx::testing::parseNamedModelText(kBroadcastResidual);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  std::mt19937 rng(12);
  NamedValues inputs = {{"x", randomTensor({1, 4, 6, 6}, rng, -1, 1)},
                        {"w", randomTensor({4, 4, 3, 3}, rng, -0.3f, 0.3f)},
                        {"s", randomTensor({4, 1, 1}, rng, -0.5f, 0.5f)}};
  auto cpu = Executor::create(**model);
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto expected = (*cpu)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto gpu = Executor::create(**model, options);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  auto outputs = (*gpu)->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  Comparison c = compareValues((*outputs)[0], (*expected)[0], Tolerance{1e-4, 1e-5});
  EXPECT_TRUE(c.ok) << c.reason;
  std::map<std::string, std::string> variants;
  for (const ProfileEvent& e : (*gpu)->profiler().events()) {
    if (e.opType == "Transfer") continue;
    variants[e.opType] = e.variant;
    EXPECT_EQ(e.backend, "vulkan") << e.opType;
  }
  EXPECT_EQ(variants["Conv"], "vulkan");
  EXPECT_EQ(variants["Add"], "vulkan");
  EXPECT_EQ(variants["Relu"], "vulkan");
}

}  // namespace
}  // namespace onyx::exec
