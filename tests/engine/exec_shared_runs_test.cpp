// Shared-cores runs (ExecutorOptions::SharedCores, conv_slabs_dnnl.h): a Conv cut into row slabs, each its own
// oneDNN primitive on the pool's tasks, gives what the whole-tensor Conv gives, for the geometries that make
// slabs differ (padding only at the ends, strides, dilations, groups, a folded Concat, a fused residual), as
// channel slabs where the weights outweigh the input, and Winograd Convs as channel slabs; MatMul and Gemm as
// column slabs; shared models run shared and match their expected outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <sstream>

#include "exec/compare.h"
#include "exec/cpu/cpu_isa.h"
#include "exec_fusion_test_util.h"
#include "ops/nn/conv_slabs_dnnl.h"
#include "support/test_data.h"

namespace onyx::exec::testing {
namespace {

struct SharedOutcome {
  std::vector<RunValue> outputs;
  std::vector<std::string> implementations;  // per profile event of the last run
  std::vector<int> threads;                  // per profile event: the threads its node used
  bool shared = false;
};

SharedOutcome runWith(const Model& model, const NamedValues& inputs, ExecutorOptions::SharedCores mode) {
  ExecutorOptions options;
  options.threads = 2;
  options.adaptThreads = false;
  options.sharedCores = mode;
  options.profile = true;
  auto executor = Executor::create(model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor.ok()) return {};
  SharedOutcome outcome;
  for (int run = 0; run < 2; ++run) {
    (*executor)->profiler().clear();
    auto result = (*executor)->run(inputs);
    EXPECT_TRUE(result.ok()) << result.error().toString();
    if (!result.ok()) return {};
    outcome.outputs = std::move(*result);
  }
  outcome.shared = (*executor)->lastRunReport().sharedCores;
  for (const ProfileEvent& e : (*executor)->profiler().events()) {
    outcome.implementations.push_back(e.implementation);
    outcome.threads.push_back(e.threads);
  }
  return outcome;
}

// How many of `implementations` start with `prefix`.
int countStarting(const std::vector<std::string>& implementations, const std::string& prefix) {
  return int(std::count_if(implementations.begin(), implementations.end(),
                           [&](const std::string& name) { return name.rfind(prefix, 0) == 0; }));
}

// The graph run shared and not, on the same inputs: the same outputs, and `slabbed` Convs ran as slabs,
// `byChannels` of them as channel slabs, and `ownWinograd` as our Winograd (ConvWinogradF43) in both runs.
void expectSlabsMatch(const std::string& graph, const std::string& initializers, int slabbed, int byChannels = 0,
                      int ownWinograd = 0) {
  auto model = parseModelText(withInitializers(graph, initializers));
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const NamedValues inputs = randomInputs(**model, 11);
  const SharedOutcome whole = runWith(**model, inputs, ExecutorOptions::SharedCores::Never);
  const SharedOutcome shared = runWith(**model, inputs, ExecutorOptions::SharedCores::Always);
  EXPECT_FALSE(whole.shared);
  EXPECT_TRUE(shared.shared);
  ASSERT_EQ(whole.outputs.size(), shared.outputs.size());
  for (size_t i = 0; i < whole.outputs.size(); ++i)
    EXPECT_TRUE(closeTensors(std::get<TensorValue>(shared.outputs[i]), std::get<TensorValue>(whole.outputs[i]),
                             1e-4, 1e-4))
        << "output " << i;
  EXPECT_EQ(countStarting(shared.implementations, "slabs:"), slabbed);
  for (size_t i = 0; i < shared.implementations.size(); ++i) {  // the profile says the helper had a share
    if (shared.implementations[i].rfind("slabs:", 0) == 0) {
      EXPECT_EQ(shared.threads[i], 2) << shared.implementations[i];
    }
  }
  EXPECT_EQ(countStarting(shared.implementations, "slabs:channels:"), byChannels);
  EXPECT_EQ(countStarting(shared.implementations, "winograd-4x3:"), ownWinograd);
  EXPECT_EQ(countStarting(whole.implementations, "winograd-4x3:"), ownWinograd);
  for (const std::string& name : whole.implementations) EXPECT_EQ(name.rfind("slabs:", 0), std::string::npos);
}

// While alive, ConvSlabs takes a core's cache to hold `elements` floats of weights.
struct CachedElements {
  explicit CachedElements(int64_t elements) { ConvSlabs::setCachedElementsForTests(elements); }
  ~CachedElements() { ConvSlabs::setCachedElementsForTests(-1); }
};

// A Conv of a plain input (copied to channels-last first) writing the plain graph output, with the input
// as its residual: slabs write dense channels-last buffers, copied into place transposed.
constexpr const char* kPlainOutputGraph = R"(g (float[1,32,29,23] x) => (float[1,32,29,23] y) {
      c = Conv <pads = [2, 2, 2, 2]> (x, w, b)
      s = Add (c, x)
      y = Relu (s)
    })";

// Slabs read channels-last tensors as they lie and write channels-last ones in place: each graph starts with
// a 1x1 Conv of the plain graph input and ends with one writing the plain graph output, of too little work
// for slabs except the last graph's.
TEST(ExecSharedRuns, ConvSlabsMatchTheWholeConvolution) {
  // Padding at the top and bottom only, stride 1, a fused Relu: 3 slab geometries (first, middle, last).
  expectSlabsMatch(R"(g (float[1,16,29,23] x) => (float[1,8,29,23] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (a, w, b)
      r = Relu (c)
      y = Conv (r, wz)
    })",
                   initializer("wa", {32, 16, 1, 1}, 1) + ", " + initializer("w", {48, 32, 3, 3}, 2) + ", " +
                       initializer("b", {48}, 3) + ", " + initializer("wz", {8, 48, 1, 1}, 4),
                   1);
  // Stride 2, uneven padding, dilation 2: slabs whose input rows overlap and do not start on a stride.
  expectSlabsMatch(R"(g (float[1,16,41,37] x) => (float[1,8,19,19] y) {
      a = Conv (x, wa)
      c = Conv <strides = [2, 2], dilations = [2, 2], pads = [2, 1, 0, 2]> (a, w)
      y = Conv (c, wz)
    })",
                   initializer("wa", {24, 16, 1, 1}, 5) + ", " + initializer("w", {40, 24, 3, 3}, 6) + ", " +
                       initializer("wz", {8, 40, 1, 1}, 7),
                   1);
  // Depthwise (group = channels), then a pointwise Conv with a residual Add fused into it.
  expectSlabsMatch(R"(g (float[1,16,45,45] x) => (float[1,8,45,45] y) {
      a = Conv (x, wa)
      d = Conv <group = 64, pads = [2, 2, 2, 2]> (a, wd)
      p = Conv (d, wp)
      s = Add (p, a)
      y = Conv (s, wz)
    })",
                   initializer("wa", {64, 16, 1, 1}, 8) + ", " + initializer("wd", {64, 1, 5, 5}, 9) + ", " +
                       initializer("wp", {64, 64, 1, 1}, 10) + ", " + initializer("wz", {8, 64, 1, 1}, 11),
                   2);
  // A plain input (the graph's): copied to channels-last, then slabs; the plain output's 1 x 1 Conv (4 MFLOP)
  // as two slabs through buffers.
  expectSlabsMatch(R"(g (float[1,3,64,64] x) => (float[1,8,64,64] y) {
      c = Conv <pads = [1, 1, 1, 1]> (x, w, b)
      y = Conv (c, wz)
    })",
                   initializer("w", {64, 3, 3, 3}, 18) + ", " + initializer("b", {64}, 19) + ", " +
                       initializer("wz", {8, 64, 1, 1}, 20),
                   2);
  expectSlabsMatch(kPlainOutputGraph, initializer("w", {32, 32, 5, 5}, 24) + ", " + initializer("b", {32}, 25), 1);
  // A SiLU ending the epilogue: our pass over the slabs' output, not a oneDNN post-op.
  expectSlabsMatch(R"(g (float[1,16,30,30] x) => (float[1,8,30,30] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (a, w, b)
      s = Sigmoid (c)
      m = Mul (c, s)
      y = Conv (m, wz)
    })",
                   initializer("wa", {32, 16, 1, 1}, 26) + ", " + initializer("w", {48, 32, 3, 3}, 27) + ", " +
                       initializer("b", {48}, 28) + ", " + initializer("wz", {8, 48, 1, 1}, 29),
                   1);
}

// Weights that do not stay in a core's cache (1,000 floats here): each slab some output channels over all
// rows, written to a buffer and copied into place, with a bias and a Relu, a fused residual, a dilation, a
// stride (none of them a Conv that Winograd serves).
TEST(ExecSharedRuns, ChannelSlabsMatchTheWholeConvolution) {
  const CachedElements cache(1000);
  expectSlabsMatch(R"(g (float[1,16,21,21] x) => (float[1,8,10,10] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (a, w, b)
      r = Relu (c)
      e = Conv <dilations = [2, 2], pads = [2, 2, 2, 2]> (r, w2)
      s = Add (e, r)
      t = Relu (s)
      d = Conv <strides = [2, 2]> (t, w3)
      y = Conv (d, wz)
    })",
                   initializer("wa", {24, 16, 1, 1}, 31) + ", " + initializer("w", {96, 24, 3, 3}, 32) + ", " +
                       initializer("b", {96}, 33) + ", " + initializer("w2", {96, 96, 3, 3}, 34) + ", " +
                       initializer("w3", {64, 96, 3, 3}, 35) + ", " + initializer("wz", {8, 64, 1, 1}, 36),
                   3, 3);
  // The plain graph output, with the plain graph input as its residual: through a buffer, transposed.
  expectSlabsMatch(kPlainOutputGraph, initializer("w", {32, 32, 5, 5}, 37) + ", " + initializer("b", {32}, 38), 1, 1);
}

TEST(ExecSharedRuns, WinogradConvsStayWhole) {
  // 3x3, stride 1, 64 channels over 28 x 28: Winograd does more for it than slabs, oneDNN's (AVX-512) or ours
  // (without AVX-512), whose loops the caller takes over from a descheduled helper.
  const bool own = cpuIsa() != CpuIsa::Avx512;
  expectSlabsMatch(R"(g (float[1,16,28,28] x) => (float[1,8,28,28] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (a, w)
      y = Conv (c, wz)
    })",
                   initializer("wa", {64, 16, 1, 1}, 21) + ", " + initializer("w", {64, 64, 3, 3}, 22) + ", " +
                       initializer("wz", {8, 64, 1, 1}, 23),
                   0, 0, own ? 1 : 0);
}

// Winograd Convs of 128 output channels: two slabs of 64 each (AVX-512), one writing its blocks of 16 where
// the next Winograd Conv reads them, the next with a residual in blocks of 16 written through a buffer into
// the channels-last output a 1 x 1 Conv reads. Without AVX-512 (no Winograd in oneDNN), our Winograd, whole.
TEST(ExecSharedRuns, WinogradConvsOfManyChannelsRunAsChannelSlabs) {
  const bool winograd = cpuIsa() == CpuIsa::Avx512;
  expectSlabsMatch(R"(g (float[1,16,14,14] x) => (float[1,8,14,14] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (a, w, b)
      r = Relu (c)
      e = Conv <pads = [1, 1, 1, 1]> (r, w2)
      s = Add (e, r)
      t = Relu (s)
      y = Conv (t, wz)
    })",
                   initializer("wa", {32, 16, 1, 1}, 41) + ", " + initializer("w", {128, 32, 3, 3}, 42) + ", " +
                       initializer("b", {128}, 43) + ", " + initializer("w2", {128, 128, 3, 3}, 44) + ", " +
                       initializer("wz", {8, 128, 1, 1}, 45),
                   winograd ? 2 : 0, winograd ? 2 : 0, winograd ? 0 : 2);
  // A SiLU ending a Winograd Conv's epilogue, after the slabs.
  expectSlabsMatch(R"(g (float[1,16,14,14] x) => (float[1,8,14,14] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (a, w)
      s = Sigmoid (c)
      m = Mul (s, c)
      y = Conv (m, wz)
    })",
                   initializer("wa", {32, 16, 1, 1}, 46) + ", " + initializer("w", {128, 32, 3, 3}, 47) + ", " +
                       initializer("wz", {8, 128, 1, 1}, 48),
                   winograd ? 1 : 0, winograd ? 1 : 0, winograd ? 0 : 1);
}

TEST(ExecSharedRuns, ConvSlabsReadTheFoldedConcatsParts) {
  // SqueezeNet's fire module: two expands joined by a Concat the executor folds into the next Conv.
  expectSlabsMatch(R"(g (float[1,16,37,37] x) => (float[1,8,37,37] y) {
      a = Conv (x, wa)
      e1 = Conv (a, w1)
      r1 = Relu (e1)
      e3 = Conv <pads = [1, 1, 1, 1]> (a, w3)
      r3 = Relu (e3)
      j = Concat <axis = 1> (r1, r3)
      n = Conv <pads = [1, 1, 1, 1]> (j, wn, bn)
      y = Conv (n, wz)
    })",
                   initializer("wa", {32, 16, 1, 1}, 12) + ", " + initializer("w1", {48, 32, 1, 1}, 13) + ", " +
                       initializer("w3", {48, 32, 3, 3}, 14) + ", " + initializer("wn", {32, 96, 3, 3}, 15) + ", " +
                       initializer("bn", {32}, 16) + ", " + initializer("wz", {8, 32, 1, 1}, 17),
                   3);
}

// MatMul and Gemm as column slabs (matmul_dnnl.h): each slab its own columns of a constant B, through a dense
// buffer, with the epilogue's bias, a residual of the product's dims (copied dense per slab), residuals
// broadcast along the rows or the columns, and Gemm's transB, alpha and C.
TEST(ExecSharedRuns, MatMulSlabsMatchTheWholeProduct) {
  // On AVX2 these products run on our panels (DnnlMatmul::takesPanels), shared or not: oneDNN's here.
  const ScopedEnv dnnl("ONYX_MATMUL", "dnnl");
  expectSlabsMatch(R"(g (float[1,64,128] x, float[1,64,320] r) => (float[1,64,320] y) {
      m = MatMul (x, wb)
      b = Add (m, bias)
      s = Add (b, r)
      y = Relu (s)
    })",
                   initializer("wb", {128, 320}, 51) + ", " + initializer("bias", {320}, 52), 1);
  expectSlabsMatch(R"(g (float[1,64,128] x, float[1,1,320] q, float[1,64,1] p) => (float[1,64,320] y) {
      m = MatMul (x, wb)
      s = Add (m, q)
      y = Add (s, p)
    })",
                   initializer("wb", {128, 320}, 53), 1);
  expectSlabsMatch(R"(g (float[64,128] a) => (float[64,320] z) {
      z = Gemm <alpha = 0.5, beta = 2.0, transB = 1> (a, wt, c)
    })",
                   initializer("wt", {320, 128}, 54) + ", " + initializer("c", {320}, 55), 1);
}

// A shared model run shared, after its outputs were checked against the expected ones.
SharedOutcome runSharedAndCheck(const std::filesystem::path& dir) {
  auto model = loadModel(dir / "model.onnx");
  EXPECT_TRUE(model.ok()) << model.error().toString();
  if (!model.ok()) return {};
  auto data = loadTestDataSet(**model, dir / "test_data_set_0");
  EXPECT_TRUE(data.ok()) << data.error().toString();
  if (!data.ok()) return {};
  NamedValues inputs;
  for (const auto& [name, value] : data->inputs) inputs.push_back({name, value});
  const SharedOutcome shared = runWith(**model, inputs, ExecutorOptions::SharedCores::Always);
  EXPECT_TRUE(shared.shared);
  EXPECT_EQ(shared.outputs.size(), data->outputs.size());
  for (size_t i = 0; i < shared.outputs.size() && i < data->outputs.size(); ++i) {
    const Comparison c = compareValues(shared.outputs[i], data->outputs[i], Tolerance{1e-3, 1e-4});
    EXPECT_TRUE(c.ok) << "output " << i << ": " << c.reason;
  }
  return shared;
}

// GPT-2: its products with constant weights as column slabs, the attention's stay whole. On AVX2 they run on
// our panels instead, whose tasks the caller takes over from a descheduled helper.
TEST(ExecSharedRuns, Gpt2RunsSharedAndMatchesItsExpectedOutputs) {
  ONYX_REQUIRE_SHARED(dir, "models/gpt2_small");
  const SharedOutcome shared = runSharedAndCheck(dir);
  const bool avx2 = cpuIsa() == CpuIsa::Avx2;
  EXPECT_EQ(countStarting(shared.implementations, "slabs:"), avx2 ? 0 : 17);
  EXPECT_EQ(countStarting(shared.implementations, "panels:"), avx2 ? 17 : 0);
}

TEST(ExecSharedRuns, SqueezeNetRunsSharedAndMatchesItsExpectedOutputs) {
  ONYX_REQUIRE_SHARED(dir, "models/squeezenet1_1");
  // The heavy convolutions; the 13 x 13 ones of little work stay whole.
  EXPECT_GE(countStarting(runSharedAndCheck(dir).implementations, "slabs:"), 10);
}

// ResNet18 on a core whose cache holds 2 MiB (this machine's L2): layer4's convs (7 x 7 maps, 1.2-2.4M
// weights) as channel slabs, and with AVX-512 the Winograd convs of layer2 and layer3 (128 and 256 channels).
// Under load its runs took 0.69-0.79x the time of whole convs on one thread.
// oneDNN names its Winograd kernels by CPU: jit_fp32_wino_2x3 throughout on Intel Xeons, jit_wino_4x3 for
// layer2 on AMD Zen 4. Both count as Winograd here.
bool isWinograd(const std::string& implementation) {
  return implementation.find("wino") != std::string::npos;
}

TEST(ExecSharedRuns, ResNet18RunsSharedAndMatchesItsExpectedOutputs) {
  ONYX_REQUIRE_SHARED(dir, "models/resnet18");
  const CachedElements cache(int64_t(512) << 10);
  const SharedOutcome shared = runSharedAndCheck(dir);
  const std::vector<std::string>& implementations = shared.implementations;
  const bool avx512 = cpuIsa() == CpuIsa::Avx512;
  // layer1's Winograd convs (64 channels) stay whole: on the caller alone, and the profile says so. Without
  // AVX-512 all ten Winograd convs are ours, whose loops share out tasks that the caller takes over from a
  // descheduled helper: on both threads.
  int wholeWinograd = 0, winogradSlabs = 0, directChannelSlabs = 0, ownWinograd = 0;
  for (size_t i = 0; i < implementations.size(); ++i) {
    const bool channelSlabs = implementations[i].rfind("slabs:channels:", 0) == 0;
    if (implementations[i].rfind("winograd-4x3:", 0) == 0) {
      ++ownWinograd;
      EXPECT_EQ(shared.threads[i], 2) << implementations[i];
    } else if (!isWinograd(implementations[i])) {
      directChannelSlabs += channelSlabs;
    } else if (channelSlabs) {
      ++winogradSlabs;
    } else {
      ++wholeWinograd;
      EXPECT_EQ(shared.threads[i], 1) << implementations[i];
    }
  }
  EXPECT_EQ(wholeWinograd, avx512 ? 4 : 0);
  EXPECT_EQ(winogradSlabs, avx512 ? 6 : 0);
  EXPECT_EQ(ownWinograd, avx512 ? 0 : 10);
  EXPECT_EQ(directChannelSlabs, 4);  // layer4's
}

}  // namespace
}  // namespace onyx::exec::testing
