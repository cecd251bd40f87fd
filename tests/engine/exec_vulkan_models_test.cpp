// Shared models on the Vulkan backend match their expected outputs (rtol 1e-3, atol 1e-4), with most nodes
// on the device (the rest fall back to the CPU with transfers). lavapipe is slow: one data set each.
#include <gtest/gtest.h>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_vulkan_test_util.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::exec {
namespace {

class VulkanSharedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(VulkanSharedModel, MatchesExpectedOutputs) {
  ONYX_REQUIRE_VULKAN();
  const std::string relative = "models/" + GetParam();
  ONYX_REQUIRE_SHARED(dir, relative);
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  // The float work belongs on the device; integer shape arithmetic (Shape, Gather, Concat of int64, Constant)
  // stays on the host, where Reshape and Slice read it.
  int onDevice = 0, floatNodes = 0;
  std::string onHost;
  for (const Assignment& a : (*executor)->assignments()) {
    const Value* out = a.node->output(0);
    if (!out || !out->type().isTensor() || a.node->opType() == "Constant") continue;
    DataType dtype = out->type().elemType();
    if (dtype != DataType::Float && dtype != DataType::Float16) continue;
    ++floatNodes;
    if (a.backend == "vulkan")
      ++onDevice;
    else
      onHost += " " + a.node->describe();
  }
  EXPECT_GE(onDevice * 10, floatNodes * 9)
      << "only " << onDevice << " of " << floatNodes << " float nodes on the Vulkan device; on the CPU:" << onHost;
  auto data = loadTestDataSet(**model, dir / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  auto outputs = (*executor)->run(data->inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  ASSERT_EQ(outputs->size(), data->outputs.size());
  for (size_t k = 0; k < outputs->size(); ++k) {
    Comparison c = compareValues((*outputs)[k], data->outputs[k], Tolerance{1e-3, 1e-4});
    EXPECT_TRUE(c.ok) << "output " << k << ": " << c.reason;
  }
  // One profile event per step; device steps carry device times.
  int vulkanEvents = 0;
  for (const ProfileEvent& e : (*executor)->profiler().events()) {
    EXPECT_GE(e.durationNs, 0);
    vulkanEvents += e.backend == "vulkan";
  }
  EXPECT_GE(vulkanEvents, onDevice);
}

INSTANTIATE_TEST_SUITE_P(Exec, VulkanSharedModel, ::testing::Values("resnet18", "bert_small", "squeezenet1_1"));

}  // namespace
}  // namespace onyx::exec
