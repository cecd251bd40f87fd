// ONNX backend node cases through the Vulkan backend pass exactly as often as through the CPU (nodes the
// device cannot run fall back). lavapipe is slow, so ctest runs the cases of the ops with Vulkan kernels;
// ONYX_VULKAN_CONFORMANCE_FILTER=<regex> runs others (".": the whole suite, as the README's count).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <regex>

#include "exec/conformance.h"
#include "exec_vulkan_test_util.h"
#include "support/test_data.h"

namespace onyx::exec {
namespace {

TEST(VulkanConformance, NodeCasesPassAsOftenAsOnTheCpu) {
  ONYX_REQUIRE_VULKAN();
  ONYX_REQUIRE_SHARED(dir, "onnx-backend-data/node");
  const char* env = std::getenv("ONYX_VULKAN_CONFORMANCE_FILTER");
  std::regex filter(env ? env
                        : "^test_(add|sub|mul|div|relu|sigmoid|tanh|exp|matmul|gemm|conv|maxpool|averagepool|"
                          "globalaveragepool|softmax|logsoftmax|batchnorm|layer_normalization|"
                          "instancenorm|reduce_sum|reduce_mean|reduce_max|transpose|concat|slice|gather_[0-9]|"
                          "split|pad|expand|where|clip|leakyrelu|elu|pow|erf|gelu|mish|softplus|tanh|resize)");
  ConformanceOptions cpu, vulkan;
  vulkan.executor.backends = {"vulkan"};
  int cases = 0, cpuPassed = 0, vulkanPassed = 0;
  for (const auto& caseDir : findCases(dir)) {
    if (!std::regex_search(caseDir.filename().string(), filter)) continue;
    ++cases;
    CaseResult onCpu = runConformanceCase(caseDir, cpu);
    CaseResult onVulkan = runConformanceCase(caseDir, vulkan);
    cpuPassed += onCpu.status == CaseResult::Status::Passed;
    vulkanPassed += onVulkan.status == CaseResult::Status::Passed;
    if (onCpu.status == CaseResult::Status::Passed) {
      EXPECT_EQ(onVulkan.status, CaseResult::Status::Passed) << onVulkan.name << ": " << onVulkan.reason;
    }
  }
  std::cout << "node cases: " << cases << ", cpu " << cpuPassed << " passed, vulkan " << vulkanPassed
            << " passed\n";
  EXPECT_GT(cases, 100);
  EXPECT_EQ(vulkanPassed, cpuPassed);
}

}  // namespace
}  // namespace onyx::exec
