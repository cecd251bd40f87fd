// Backends by name (exec/backend_registry.h): the built-in registry holds the CPU and Vulkan backends, a
// registry creates what was added under a name, an unknown name is an error listing the registered ones, and
// the executor makes its backends, the fallback included, through it.
#include <gtest/gtest.h>

#include "exec/backend_registry.h"
#include "exec/executor.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

const char* kRelu = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y) {
  y = Relu(x)
})";

TEST(ExecBackendRegistry, TheBuiltinRegistryHoldsTheCpuAndVulkanBackends) {
  BackendRegistry& registry = BackendRegistry::builtin();
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"cpu", "vulkan"}));
  EXPECT_EQ(&registry, &BackendRegistry::builtin());
  auto model = parsePlanModel(kRelu);
  ASSERT_TRUE(model);
  ThreadPool pool(1);
  auto cpu = registry.create("cpu", {*model, pool, "", "reference"});
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  EXPECT_EQ((*cpu)->name(), "cpu");
  EXPECT_TRUE((*cpu)->usesHostMemory());
}

TEST(ExecBackendRegistry, CreatesByNameAndListsTheNamesItKnows) {
  BackendRegistry registry;
  EXPECT_TRUE(registry.names().empty());
  std::string seenDevice;
  registry.add("fake", [&](const BackendSettings& settings) -> Expected<std::unique_ptr<Backend>> {
    seenDevice = settings.device;
    return std::unique_ptr<Backend>(
        std::make_unique<FakeBackend>("fake", true, std::map<std::string, FakeTraits>{}));
  });
  registry.add("broken", [](const BackendSettings&) -> Expected<std::unique_ptr<Backend>> {
    return makeError("no device here", "--device");
  });
  EXPECT_TRUE(registry.has("fake"));
  EXPECT_FALSE(registry.has("cpu"));
  auto model = parsePlanModel(kRelu);
  ASSERT_TRUE(model);
  ThreadPool pool(1);
  auto fake = registry.create("fake", {*model, pool, "1", ""});
  ASSERT_TRUE(fake.ok());
  EXPECT_EQ((*fake)->name(), "fake");
  EXPECT_EQ(seenDevice, "1");
  auto broken = registry.create("broken", {*model, pool, "", ""});
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().message, "no device here");
  auto unknown = registry.create("metal", {*model, pool, "", ""});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message,
            "backend 'metal' is not available in this build; choose one of: fake, broken");

  registry.add("broken", [](const BackendSettings&) -> Expected<std::unique_ptr<Backend>> {
    return makeError("still no device");
  });  // replaces, keeps its place
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"fake", "broken"}));
  EXPECT_EQ(registry.create("broken", {*model, pool, "", ""}).error().message, "still no device");
}

TEST(ExecBackendRegistry, TheExecutorMakesItsFallbackByName) {
  auto model = parsePlanModel(kRelu);
  ASSERT_TRUE(model);
  ExecutorOptions options;
  options.fallbackBackend = "metal";
  auto missing = Executor::create(*model, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "backend 'metal' is not available in this build; choose one of: cpu, vulkan");

  options.fallbackBackend = "cpu";
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  EXPECT_EQ((*executor)->devices(), (std::vector<std::pair<std::string, std::string>>{{"cpu", "cpu"}}));
  EXPECT_EQ((*executor)->assignments()[0].backend, "cpu");
}

}  // namespace
}  // namespace onyx::exec::testing
