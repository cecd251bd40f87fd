#pragma once
// Vulkan kernel tests: the node runs on the Vulkan backend (the test fails if the scheduler gave it to the
// CPU) and is compared with the CPU reference kernel. Tests skip, with the reason, only when the machine has
// no Vulkan device at all.
#include "exec/vulkan/vulkan_backend.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {

inline const Expected<std::string>& vulkanDevice() {
  static const Expected<std::string> device = vulkan::probeDevice();
  return device;
}

#define ONYX_REQUIRE_VULKAN()                                                                          \
  do {                                                                                                 \
    if (!::onyx::exec::testing::vulkanDevice())                                                        \
      GTEST_SKIP() << "no Vulkan device: " << ::onyx::exec::testing::vulkanDevice().error().toString(); \
  } while (0)

inline Expected<std::vector<RunValue>> runOnVulkan(const NodeCase& c, const std::vector<TensorValue>& inputs,
                                                   std::string* backendUsed) {
  auto model = singleNodeModel(c, inputs);
  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto executor = Executor::create(*model, options);
  if (!executor) return executor.error();
  NamedValues named;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty()) named.push_back({"x" + std::to_string(i), inputs[i]});
  auto outputs = (*executor)->run(named);
  // The backend the node ran on: the assignment, unless the kernel fell back to the CPU at run time.
  *backendUsed = (*executor)->assignments().at(0).backend;
  for (const ProfileEvent& e : (*executor)->profiler().events())
    if (e.opType == c.opType && e.variant == "cpu-fallback") *backendUsed = "cpu-fallback";
  return outputs;
}

inline void expectVulkanMatchesReference(const NodeCase& c, const std::vector<TensorValue>& inputs,
                                         double rtol = 1e-4, double atol = 1e-5) {
  std::string backend;
  auto gpu = runOnVulkan(c, inputs, &backend);
  auto ref = runNode(c, inputs, "reference");
  ASSERT_TRUE(ref.ok()) << ref.error().toString();
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  EXPECT_EQ(backend, "vulkan") << c.opType << " was not given to the Vulkan backend";
  ASSERT_EQ(gpu->size(), ref->size());
  for (size_t i = 0; i < ref->size(); ++i) {
    const auto* a = std::get_if<TensorValue>(&(*gpu)[i]);
    const auto* b = std::get_if<TensorValue>(&(*ref)[i]);
    ASSERT_TRUE(a && b);
    EXPECT_TRUE(closeTensors(*a, *b, rtol, atol)) << c.opType << " output " << i;
  }
}

inline Attribute intAttr(const std::string& name, int64_t v) { return Attribute::ofInt(name, v); }
inline Attribute intsAttr(const std::string& name, std::vector<int64_t> v) {
  return Attribute::ofInts(name, std::move(v));
}
inline Attribute floatAttr(const std::string& name, float v) { return Attribute::ofFloat(name, v); }
inline Attribute stringAttr(const std::string& name, std::string v) {
  return Attribute::ofString(name, std::move(v));
}

}  // namespace onyx::exec::testing
