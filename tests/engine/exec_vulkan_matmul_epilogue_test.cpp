// The Vulkan MatMul computes the element-wise nodes after it in its output pass, as the CPU's oneDNN MatMul
// does: a bias row, GELU written out with Erf, scalings, activations and a residual Add. One device event for
// the chain, the fused nodes marked "fused into", and outputs equal to the CPU's.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_vulkan_test_util.h"
#include "support/named_text_model.h"

namespace onyx::exec {
namespace {

std::string floatList(int64_t count, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::string text;
  for (int64_t i = 0; i < count; ++i) text += (i ? ", " : "") + std::to_string(dist(rng));
  return text;
}

// fc1: bias then GELU (Div, Erf, Add, Mul, Mul); fc2: bias then the residual Add of the input; scaled: Mul and
// Sub by scalars (one linear stage) then Tanh; thin: a product long in K that splits K, then bias and Relu.
std::string chainsModel(std::mt19937& rng) {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
chains (float[2, 5, 24] x, float[2, 1030] p) => (float[2, 5, 40] s, float[2, 3] z)
  <float[24, 40] w1 = {)" + floatList(24 * 40, rng, 0.3f) + R"(}, float[40] b1 = {)" + floatList(40, rng, 0.5f) +
         R"(}, float[40, 24] w2 = {)" + floatList(40 * 24, rng, 0.3f) + R"(}, float[24] b2 = {)" + floatList(24, rng, 0.5f) +
         R"(}, float[24, 40] w3 = {)" + floatList(24 * 40, rng, 0.3f) + R"(}, float[1030, 3] w4 = {)" +
         floatList(1030 * 3, rng, 0.1f) + R"(}, float[3] b4 = {)" + floatList(3, rng, 0.5f) + R"(}> {
  root2 = Constant <value = float {1.41421356}> ()
  one = Constant <value = float {1.0}> ()
  half = Constant <value = float {0.5}> ()
  scale = Constant <value = float {0.25}> ()
  shift = Constant <value = float {0.125}> ()
  h = MatMul <name = "fc1"> (x, w1)
  hb = Add (b1, h)
  d = Div (hb, root2)
  e = Erf (d)
  e1 = Add (e, one)
  m = Mul (hb, e1)
  g = Mul (m, half)
  o = MatMul <name = "fc2"> (g, w2)
  ob = Add (o, b2)
  r = Add (x, ob)
  t = MatMul <name = "scaled"> (r, w3)
  t2 = Mul (t, scale)
  t3 = Sub (t2, shift)
  s = Tanh (t3)
  q = MatMul <name = "thin"> (p, w4)
  qb = Add (q, b4)
  z = Relu (qb)
}
)";
}

TensorValue randomTensor(Dims dims, std::mt19937& rng) {
  TensorValue t = TensorValue::allocate(DataType::Float, std::move(dims));
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < t.count(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

TEST(VulkanMatmulEpilogue, MatmulChainsRunAsOneDeviceStepEachAndMatchTheCpu) {
  ONYX_REQUIRE_VULKAN();
  std::mt19937 rng(21);
  auto model = onyx::testing::parseNamedModelText(chainsModel(rng));
  ASSERT_TRUE(model.ok()) << model.error().toString();
  NamedValues inputs = {{"x", randomTensor({2, 5, 24}, rng)}, {"p", randomTensor({2, 1030}, rng)}};
  auto cpu = Executor::create(**model);
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto expected = (*cpu)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().toString();

  ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  auto gpu = Executor::create(**model, options);
  ASSERT_TRUE(gpu.ok()) << gpu.error().toString();
  for (int run = 0; run < 2; ++run) {  // the second run replays the recording
    SCOPED_TRACE("run " + std::to_string(run));
    auto outputs = (*gpu)->run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
    for (size_t i = 0; i < 2; ++i) {
      Comparison c = compareValues((*outputs)[i], (*expected)[i], Tolerance{1e-4, 1e-5});
      EXPECT_TRUE(c.ok) << "output " << i << ": " << c.reason;
    }
  }
  std::map<std::string, std::string> variants;
  int fusedAway = 0;
  for (const ProfileEvent& e : (*gpu)->profiler().events()) {
    if (e.opType == "Transfer" || e.opType == "Constant") continue;
    EXPECT_EQ(e.backend, "vulkan") << e.opType << " " << e.name;
    if (e.opType == "MatMul") variants[e.name] = e.variant;
    if (e.variant.rfind("fused into", 0) == 0) {
      ++fusedAway;
      EXPECT_EQ(e.durationNs, 0) << e.opType << ": the device time belongs to the MatMul's event";
    }
  }
  EXPECT_EQ(variants["fc1"], "vulkan+Add+Div+Erf+Add+Mul+Mul");
  EXPECT_EQ(variants["fc2"], "vulkan+Add+Add");
  EXPECT_EQ(variants["scaled"], "vulkan+Mul+Sub+Tanh");
  EXPECT_EQ(variants["thin"], "vulkan+Add+Relu");
  EXPECT_EQ(fusedAway, 2 * 13);  // 13 fused nodes, two runs
}

}  // namespace
}  // namespace onyx::exec
