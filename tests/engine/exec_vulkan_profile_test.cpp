// Device profiles carry the same work figures as the CPU's: a Vulkan node's event reports the FLOPs the CPU
// kernel of the same op counts, and the bytes it reads and writes, so GFLOP/s and GB/s compare across backends.
#include "exec_vulkan_test_util.h"

namespace onyx::exec::testing {
namespace {

// The profile event of the case's node, run on `backend` ("vulkan" or "cpu").
ProfileEvent profiledEvent(const NodeCase& c, const std::vector<TensorValue>& inputs, const std::string& backend) {
  auto model = singleNodeModel(c, inputs);
  ExecutorOptions options;
  if (backend == "vulkan") options.backends = {"vulkan"};
  options.profile = true;
  auto executor = Executor::create(*model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor) return {};
  NamedValues named;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty()) named.push_back({"x" + std::to_string(i), inputs[i]});
  auto outputs = (*executor)->run(named);
  EXPECT_TRUE(outputs.ok()) << outputs.error().toString();
  for (const ProfileEvent& e : (*executor)->profiler().events())
    if (e.opType == c.opType) return e;
  ADD_FAILURE() << "no profile event for " << c.opType;
  return {};
}

void expectDeviceWorkMatchesCpu(const NodeCase& c, const std::vector<TensorValue>& inputs) {
  SCOPED_TRACE(c.opType);
  ProfileEvent gpu = profiledEvent(c, inputs, "vulkan");
  ProfileEvent cpu = profiledEvent(c, inputs, "cpu");
  EXPECT_EQ(gpu.backend, "vulkan");
  EXPECT_EQ(gpu.variant, "vulkan");
  EXPECT_GT(gpu.flops, 0);
  EXPECT_EQ(gpu.flops, cpu.flops);
  EXPECT_EQ(gpu.bytesRead, cpu.bytesRead);
  EXPECT_EQ(gpu.bytesWritten, cpu.bytesWritten);
}

TEST(VulkanProfile, DeviceEventsCarryTheCpuKernelsFlopsAndBytes) {
  ONYX_REQUIRE_VULKAN();
  TensorValue x = randomTensor(DataType::Float, {2, 8, 9, 9}, 1);
  expectDeviceWorkMatchesCpu(NodeCase("Conv", {intsAttr("pads", {1, 1, 1, 1})}),
                             {x, randomTensor(DataType::Float, {16, 8, 3, 3}, 2), randomTensor(DataType::Float, {16}, 3)});
  expectDeviceWorkMatchesCpu({"MatMul"}, {randomTensor(DataType::Float, {3, 17, 33}, 4), randomTensor(DataType::Float, {33, 20}, 5)});
  expectDeviceWorkMatchesCpu(NodeCase("Gemm", {intAttr("transB", 1)}),
                             {randomTensor(DataType::Float, {13, 19}, 6), randomTensor(DataType::Float, {37, 19}, 7),
                              randomTensor(DataType::Float, {37}, 8)});
  TensorValue a = randomTensor(DataType::Float, {4, 5, 6}, 9), b = randomTensor(DataType::Float, {5, 1}, 10);
  for (const char* op : {"Add", "Mul", "Sub", "Div"}) expectDeviceWorkMatchesCpu({op}, {a, b});
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Sqrt"}) expectDeviceWorkMatchesCpu({op}, {a});
}

}  // namespace
}  // namespace onyx::exec::testing
