// Convolutions that take oneDNN's Winograd algorithm (dense 3x3 stride 1, >= 16 channels in, >= 64 out,
// >= 14 x 14 outputs, constant weights): the profile names the algorithm, and a ResNet basic block (two
// convs with bias, ReLU and the residual sum fused) matches the reference over runs. Convs outside the
// rule, and those whose weights a caller may change, stay direct.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

// x [1, C, S, S] -> Conv(w1, b1) -> Relu -> Conv(w2, b2) -> Add(x) -> Relu, pads 1; weights initializers
// unless `weightsAreInputs`.
std::unique_ptr<Model> basicBlock(int64_t channels, int64_t size, bool weightsAreInputs) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(
      g, "x", Type::tensor(DataType::Float, Shape{Dim(1), Dim(channels), Dim(size), Dim(size)}));
  const float scale = 1.0f / std::sqrt(float(channels * 9));
  auto weight = [&](const std::string& name, std::vector<int64_t> dims, uint64_t seed) {
    return rw.addInitializer(g, name, randomWeights(dims, seed, scale));
  };
  Value* w1 = weight("w1", {channels, channels, 3, 3}, 1);
  Value* b1 = weight("b1", {channels}, 2);
  Value* w2 = weight("w2", {channels, channels, 3, 3}, 3);
  Value* b2 = weight("b2", {channels}, 4);
  auto add = [&](std::string op, std::vector<Value*> inputs, std::vector<Attribute> attrs = {}) {
    return addNode(rw, g, std::move(op), std::move(inputs), std::move(attrs));
  };
  if (weightsAreInputs) rw.setGraphInputs(g, {x, w1, b1, w2, b2});  // IR 3 style: defaults a run may override
  std::vector<Attribute> pads = {Attribute::ofInts("pads", {1, 1, 1, 1})};
  Value* h = add("Relu", {add("Conv", {x, w1, b1}, pads)});
  Value* y = add("Relu", {add("Add", {add("Conv", {h, w2, b2}, pads), x})});
  rw.setGraphOutputs(g, {y});
  return model;
}

std::vector<std::string> convVariants(const Outcome& outcome) {
  std::vector<std::string> convs;
  for (const std::string& v : outcome.variants)
    if (v.rfind("dnnl", 0) == 0) convs.push_back(v);
  return convs;
}

bool winogradAvailable() {  // oneDNN 2.6 has Winograd kernels for AVX-512 only
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
}

TEST(ExecConvWinograd, ResNetBlockTakesItAndMatchesTheReference) {
  auto model = basicBlock(64, 16, false);
  ExecutorOptions oracle;
  oracle.kernelVariant = "reference";
  auto reference = Executor::create(*model, oracle);
  ASSERT_TRUE(reference.ok()) << reference.error().toString();
  for (uint64_t seed : {5, 6}) {
    NamedValues inputs = randomInputs(*model, seed);
    Outcome fast = runGraph(*model, inputs, true);
    auto want = (*reference)->run(inputs);
    ASSERT_TRUE(want.ok()) << want.error().toString();
    ASSERT_EQ(fast.outputs.size(), 1u);
    // Winograd rounds differently from direct summation; 1e-4 is what ResNet's outputs hold to.
    EXPECT_TRUE(
        closeTensors(std::get<TensorValue>(fast.outputs[0]), std::get<TensorValue>((*want)[0]), 1e-4, 1e-5));
    std::vector<std::string> convs = convVariants(fast);
    ASSERT_EQ(convs.size(), 2u);
    // Without AVX-512 oneDNN has no Winograd convolution, and the rule falls back to the direct one.
    const std::string algorithm = winogradAvailable() ? ":winograd" : "";
    EXPECT_EQ(convs[0], "dnnl" + algorithm + "+Relu");
    EXPECT_EQ(convs[1], "dnnl" + algorithm + "+Add+Relu");
    // oneDNN's implementation agrees ("jit_wino_4x3:avx512_core").
    for (const std::string& implementation : dnnlImplementations(fast))
      EXPECT_EQ(implementation.find("wino") != std::string::npos, winogradAvailable()) << implementation;
  }
}

TEST(ExecConvWinograd, OtherConvsStayDirect) {
  struct Case {
    int64_t channels, size;
    bool weightsAreInputs;
    const char* why;
  };
  for (const Case& c : {Case{32, 16, false, "32 output channels"}, Case{64, 7, false, "7 x 7 outputs"},
                        Case{64, 16, true, "weights a caller may change"}}) {
    SCOPED_TRACE(c.why);
    auto model = basicBlock(c.channels, c.size, c.weightsAreInputs);
    NamedValues inputs = randomInputs(*model, 9);
    if (c.weightsAreInputs) {  // randomInputs skips initializers; pass the defaults' shapes anew
      inputs.push_back({"w1", randomTensor(DataType::Float, {64, 64, 3, 3}, 1, -0.04f, 0.04f)});
      inputs.push_back({"w2", randomTensor(DataType::Float, {64, 64, 3, 3}, 2, -0.04f, 0.04f)});
    }
    Outcome fast = runGraph(*model, inputs, true);
    for (const std::string& v : convVariants(fast)) EXPECT_EQ(v.find("winograd"), std::string::npos) << v;
    EXPECT_EQ(convVariants(fast).size(), 2u);
  }
}

}  // namespace
}  // namespace onyx::exec::testing
