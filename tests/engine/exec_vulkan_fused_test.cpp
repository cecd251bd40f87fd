// Fused element-wise nodes (onyx.fused functions from the elementwise-fusion pass) run on the Vulkan device as
// one dispatch and match the CPU's fused kernel: broadcasting inputs, attributes, Clip bounds from inputs.
#include <gtest/gtest.h>

#include <random>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_vulkan_test_util.h"
#include "support/named_text_model.h"

namespace onyx::exec {
namespace {

const char* kFusedModel = R"(
<ir_version: 8, opset_import: ["" : 17, "onyx.fused" : 1]>
fused (float[3, 1, 37] x, float[5, 37] bias, float lo, float hi) => (float[3, 5, 37] y) {
  y = onyx.fused.Fused_Chain <name = "/act/Fused"> (x, bias, lo, hi)
}
<domain: "onyx.fused", opset_import: ["" : 17]>
Fused_Chain (in0, in1, in2, in3) => (out) {
  t0 = Add (in0, in1)
  t1 = Sigmoid (t0)
  t2 = Mul (t0, t1)
  t3 = LeakyRelu <alpha = 0.2> (t2)
  t4 = HardSigmoid <alpha = 0.3, beta = 0.4> (t0)
  t5 = Erf (t4)
  t6 = Sub (t3, t5)
  t7 = Tanh (t6)
  t8 = Div (t7, in1)
  out = Clip (t8, in2, in3)
}
)";

TensorValue randomTensor(Dims dims, std::mt19937& rng, float lo, float hi) {
  TensorValue t = TensorValue::allocate(DataType::Float, std::move(dims));
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

Expected<std::vector<RunValue>> runWith(const Model& model, const std::string& backend, const NamedValues& inputs,
                                        std::string* assigned) {
  ExecutorOptions options;
  options.backends = {backend};
  auto executor = Executor::create(model, options);
  if (!executor) return executor.error();
  *assigned = (*executor)->assignments().at(0).backend;
  return (*executor)->run(inputs);
}

TEST(VulkanFused, FusedElementwiseNodeRunsOnTheDeviceAndMatchesTheCpu) {
  ONYX_REQUIRE_VULKAN();
  auto model = onyx::testing::parseNamedModelText(kFusedModel);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  std::mt19937 rng(7);
  NamedValues inputs = {{"x", randomTensor({3, 1, 37}, rng, -3, 3)},
                        {"bias", randomTensor({5, 37}, rng, 0.5, 2)},
                        {"lo", randomTensor({}, rng, -0.6f, -0.5f)},
                        {"hi", randomTensor({}, rng, 0.5f, 0.6f)}};
  std::string onCpu, onVulkan;
  auto cpu = runWith(**model, "cpu", inputs, &onCpu);
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto gpu = runWith(**model, "vulkan", inputs, &onVulkan);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  EXPECT_EQ(onVulkan, "vulkan");
  ASSERT_EQ(gpu->size(), 1u);
  Comparison c = compareValues((*gpu)[0], (*cpu)[0], Tolerance{1e-4, 1e-5});
  EXPECT_TRUE(c.ok) << c.reason;
  const TensorValue& y = std::get<TensorValue>((*gpu)[0]);
  EXPECT_EQ(y.dims(), (Dims{3, 5, 37}));
}

}  // namespace
}  // namespace onyx::exec
