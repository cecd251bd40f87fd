// The instruction-set switch (exec/cpu/cpu_isa.h): ONYX_CPU_ISA's parsing, the executor's refusal of an
// invalid value, and profiles that name the set each kernel ran on. ctest runs this file, the fast kernels'
// suites and the shared models twice: natively and under ONYX_CPU_ISA=avx2 (tests/CMakeLists.txt), so the
// AVX2 paths are checked against the reference kernels on an AVX-512 machine too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "exec/cpu/cpu_isa.h"
#include "exec/cpu/dnnl_common.h"
#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_fusion_test_util.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::exec {
namespace {

TEST(CpuIsa, ParsesTheSwitch) {
  EXPECT_EQ(*parseCpuIsa("", CpuIsa::Avx512), CpuIsa::Avx512);
  EXPECT_EQ(*parseCpuIsa("native", CpuIsa::Avx2), CpuIsa::Avx2);
  EXPECT_EQ(*parseCpuIsa("avx2", CpuIsa::Avx512), CpuIsa::Avx2);
  EXPECT_EQ(*parseCpuIsa("baseline", CpuIsa::Avx2), CpuIsa::Baseline);
  EXPECT_EQ(*parseCpuIsa("avx512", CpuIsa::Avx512), CpuIsa::Avx512);
  auto missing = parseCpuIsa("avx512", CpuIsa::Avx2);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "ONYX_CPU_ISA=avx512: this CPU supports at most avx2");
  auto unknown = parseCpuIsa("sse9", CpuIsa::Avx512);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message,
            "ONYX_CPU_ISA=sse9: unknown instruction set (expected native, avx512, avx2 or baseline)");
}

// What this process runs on follows the variable, and oneDNN is capped at the same level.
TEST(CpuIsa, FollowsTheSwitchAndCapsOneDnn) {
  const char* value = std::getenv("ONYX_CPU_ISA");
  auto expected = parseCpuIsa(value ? value : "", nativeCpuIsa());
  ASSERT_TRUE(expected.ok()) << expected.error().toString();
  EXPECT_EQ(cpuIsa(), *expected);
  cpuEngine();  // what every oneDNN kernel does first
  const dnnl::cpu_isa effective = dnnl::get_effective_cpu_isa();
  if (cpuIsa() == CpuIsa::Avx2) {
    EXPECT_EQ(effective, dnnl::cpu_isa::avx2);
  } else if (cpuIsa() == CpuIsa::Baseline) {
    EXPECT_LE(int(effective), int(dnnl::cpu_isa::sse41));
  }
}

// A Sigmoid (fast_math) and a Conv (oneDNN): the profile names the set each ran on.
TEST(CpuIsa, ProfileNamesTheInstructionSet) {
  auto model = parseModelText(std::string(testing::kHeader) + R"(g (float[1,8,12,12] x, float[16,8,3,3] w) => (float[1,16,10,10] y) {
      c = Conv (x, w)
      y = Sigmoid (c)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  testing::Outcome outcome = testing::runGraph(**model, testing::randomInputs(**model, 3), false);
  ASSERT_EQ(outcome.variants.size(), 2u);
  const std::string isa(cpuIsaName(cpuIsa()));
  EXPECT_EQ(outcome.variants[0], "dnnl");
  EXPECT_EQ(outcome.variants[1], "fast");
  EXPECT_EQ(outcome.implementations[1], isa);
  // oneDNN's name for its code: "brg:avx512_core", "jit:avx2"...
  const std::string& conv = outcome.implementations[0];
  if (cpuIsa() == CpuIsa::Avx2) {
    EXPECT_NE(conv.find("avx2"), std::string::npos) << conv;
  }
  if (cpuIsa() != CpuIsa::Avx512) {
    EXPECT_EQ(conv.find("avx512"), std::string::npos) << conv;
  }
  EXPECT_NE(conv.rfind("ref", 0), 0u) << conv;
}

// Higher sets than the active one, which no variant may name.
std::vector<std::string> setsAbove(CpuIsa isa) {
  if (isa == CpuIsa::Baseline) return {"avx2", "avx512"};
  if (isa == CpuIsa::Avx2) return {"avx512"};
  return {};
}

class SharedModelIsa : public ::testing::TestWithParam<std::string> {};

// Every kernel of a real model takes the active set's fast path: the ISA-dispatched kernels name it, no
// oneDNN primitive falls back to its reference implementation, and nothing names a higher set.
TEST_P(SharedModelIsa, KernelsRunTheActiveSetsFastPaths) {
  const std::string relative = GetParam();
  ONYX_REQUIRE_SHARED(dir, relative);
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto data = loadTestDataSet(**model, dir / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  auto outputs = (*executor)->run(data->inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  const std::string isa(cpuIsaName(cpuIsa()));
  int dispatched = 0;
  for (const ProfileEvent& e : (*executor)->profiler().events()) {
    SCOPED_TRACE(e.opType + " " + e.name + ": " + e.variant);
    for (const std::string& higher : setsAbove(cpuIsa())) EXPECT_EQ(e.variant.find(higher), std::string::npos);
    // No node runs its reference kernel where its op has a variant on the instruction sets' code. (Attention,
    // SkipLayerNormalization and Gelu of the ONNX Runtime-optimized bert ran such code as their only kernel,
    // and their profiles said "reference".)
    const Node* node = (*model)->graph().findNode(e.node);
    if (node && e.variant == "reference") {
      for (const KernelDef* def : cpuKernels().variants(node->domain(), node->opType()))
        EXPECT_FALSE(def->isaDispatched) << "its " << def->variant << " variant runs per instruction set";
    }
    if (e.implementation.empty()) continue;
    EXPECT_NE(e.implementation, "reference");
    EXPECT_NE(e.implementation.rfind("ref", 0), 0u);  // oneDNN's reference code
    if (e.variant.rfind("dnnl", 0) != 0) {
      EXPECT_EQ(e.implementation, isa);
      ++dispatched;
    }
  }
  EXPECT_GT(dispatched, 0) << "no kernel of the model named its instruction set";
}

INSTANTIATE_TEST_SUITE_P(Exec, SharedModelIsa,
                         ::testing::Values("models/resnet18", "models/mobilenet_v2", "models/squeezenet1_1",
                                           "models/efficientnet_b0", "models/shufflenet_v2_x1_0", "models/ssdlite320_mobilenet_v3_large",
                                           "models/bert_small", "models/gpt2_small", "models/rnn_lstm_gru",
                                           "models-ort/bert_small_int4", "models-ort/bert_small_ortopt_fp16"),
                         [](const auto& info) {
                           std::string name = info.param.substr(info.param.find('/') + 1);
                           if (info.param.rfind("models-ort", 0) == 0) name = "ort_" + name;
                           return name;
                         });

}  // namespace
}  // namespace onyx::exec
