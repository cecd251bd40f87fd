// Vulkan element-wise kernels against the CPU reference on the Vulkan device (lavapipe in CI).
#include "exec_vulkan_test_util.h"

namespace onyx::exec::testing {
namespace {

TEST(VulkanElementwise, UnaryOpsMatchReference) {
  ONYX_REQUIRE_VULKAN();
  const char* ops[] = {"Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Floor", "Ceil", "Sign", "Sin", "Cos",
                       "Erf", "Softplus", "Softsign", "HardSwish", "Atan", "Sinh", "Asinh", "Round"};
  uint64_t seed = 1;
  for (const char* op : ops) {
    SCOPED_TRACE(op);
    expectVulkanMatchesReference(NodeCase(op), {randomTensor(DataType::Float, {3, 5, 7}, seed++, -3, 3)}, 1e-4,
                                 1e-5);
  }
  // Domain-restricted ops on valid inputs.
  expectVulkanMatchesReference({"Log"}, {randomTensor(DataType::Float, {37}, 40, 0.01f, 5)});
  expectVulkanMatchesReference({"Sqrt"}, {randomTensor(DataType::Float, {37}, 41, 0, 5)});
  expectVulkanMatchesReference({"Reciprocal"}, {randomTensor(DataType::Float, {37}, 42, 0.5f, 5)});
  expectVulkanMatchesReference({"Acosh"}, {randomTensor(DataType::Float, {37}, 43, 1.0f, 5)});
}

TEST(VulkanElementwise, ActivationsWithAttributesMatchReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 3, 11}, 7, -4, 4);
  expectVulkanMatchesReference(NodeCase("LeakyRelu", {floatAttr("alpha", 0.3f)}), {x});
  expectVulkanMatchesReference(NodeCase("Elu", {floatAttr("alpha", 0.7f)}), {x});
  expectVulkanMatchesReference(NodeCase("Selu"), {x});
  expectVulkanMatchesReference(NodeCase("HardSigmoid", {floatAttr("alpha", 0.3f)}), {x});
  expectVulkanMatchesReference(NodeCase("Celu", {floatAttr("alpha", 2.0f)}), {x});
  expectVulkanMatchesReference(NodeCase("Gelu", {}, 20), {x});
  expectVulkanMatchesReference(NodeCase("Gelu", {stringAttr("approximate", "tanh")}, 20), {x});
  expectVulkanMatchesReference(NodeCase("Clip"), {x, TensorValue::scalar<float>(DataType::Float, -0.5f),
                                                  TensorValue::scalar<float>(DataType::Float, 1.5f)});
  expectVulkanMatchesReference(NodeCase("Clip"), {x, TensorValue(), TensorValue::scalar<float>(DataType::Float, 0.f)});
}

TEST(VulkanElementwise, BinaryOpsBroadcastLikeReference) {
  ONYX_REQUIRE_VULKAN();
  struct Shapes {
    Dims a, b;
  };
  const Shapes cases[] = {{{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}},       {{2, 1, 4}, {3, 1}},
                          {{1}, {5, 7}},          {{}, {3, 2}},           {{7, 1, 1, 5}, {1, 6, 1, 1}},
                          {{2, 1, 3, 1, 2, 1, 3}, {1, 2, 1, 2, 1, 3, 1}}, {{0, 3}, {3}}};
  const char* ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "PRelu"};
  uint64_t seed = 100;
  for (const Shapes& s : cases) {
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + " " + describeTensor(DataType::Float, s.a) + " " +
                   describeTensor(DataType::Float, s.b));
      TensorValue b = randomTensor(DataType::Float, s.b, seed++, 0.5f, 3);
      expectVulkanMatchesReference(NodeCase(op), {randomTensor(DataType::Float, s.a, seed++), b});
    }
  }
  // Pow: negative bases with integral exponents, positive bases with any.
  TensorValue base = randomTensor(DataType::Float, {4, 6}, 9, -3, 3);
  TensorValue whole = TensorValue::fromVector<float>(DataType::Float, {6}, {0, 1, 2, 3, -1, -2});
  expectVulkanMatchesReference({"Pow"}, {base, whole}, 1e-4, 1e-5);
  expectVulkanMatchesReference({"Pow"}, {randomTensor(DataType::Float, {4, 6}, 10, 0.1f, 3),
                                         randomTensor(DataType::Float, {6}, 11, -2, 2)});
  expectVulkanMatchesReference(NodeCase("Mod", {intAttr("fmod", 1)}),
                               {randomTensor(DataType::Float, {9}, 12, -5, 5), randomTensor(DataType::Float, {9}, 13, 1, 2)});
}

TEST(VulkanElementwise, VariadicOpsFoldAllInputs) {
  ONYX_REQUIRE_VULKAN();
  std::vector<TensorValue> xs = {randomTensor(DataType::Float, {3, 1}, 1), randomTensor(DataType::Float, {4}, 2),
                                 randomTensor(DataType::Float, {2, 1, 4}, 3)};
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    SCOPED_TRACE(op);
    expectVulkanMatchesReference(NodeCase(op), xs);
    expectVulkanMatchesReference(NodeCase(op), {xs[0]});
  }
}

TEST(VulkanElementwise, Float16StorageMatchesReference) {
  ONYX_REQUIRE_VULKAN();
  TensorValue a = randomTensor(DataType::Float16, {3, 17}, 5), b = randomTensor(DataType::Float16, {17}, 6);
  std::string backend;
  auto gpu = runOnVulkan({"Add"}, {a, b}, &backend);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  if (backend != "vulkan") GTEST_SKIP() << vulkanDevice().value() << " has no 16-bit storage buffers";
  expectVulkanMatchesReference({"Add"}, {a, b}, 1e-3, 1e-3);
  expectVulkanMatchesReference({"Sigmoid"}, {a}, 1e-3, 1e-3);
}

TEST(VulkanElementwise, LargeTensorsUseTwoDimensionalDispatch) {
  ONYX_REQUIRE_VULKAN();
  // 2^24 + 3 elements: more than 65,535 groups of 256 in one dimension.
  TensorValue a = randomTensor(DataType::Float, {(1 << 24) + 3}, 1);
  expectVulkanMatchesReference({"Neg"}, {a}, 0, 0);
}

}  // namespace
}  // namespace onyx::exec::testing
