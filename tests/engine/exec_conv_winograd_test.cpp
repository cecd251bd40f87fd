// Convolutions that take the Winograd algorithm (oneDNN's, or ours where oneDNN has none) (dense 3x3 stride 1, >= 32 channels in, >= 64 out,
// >= 14 x 14 outputs, constant weights): the profile names the algorithm, and a ResNet basic block (two
// convs with bias, ReLU and the residual sum fused) matches the reference over runs. Convs outside the
// rule, and those whose weights a caller may change, stay direct.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <map>

#include "exec_fusion_test_util.h"
#include "ops/nn/conv_slabs_dnnl.h"

namespace onyx::exec::testing {
namespace {

// x [1, C, S, S] -> Conv(w1, b1) -> Relu -> Conv(w2, b2) -> Add(x) -> Relu, pads 1, `blocks` times in a row
// (the convs named "conv<block>_1", "conv<block>_2"); then, with `strided`, a 3 x 3 stride-2 Conv ("down").
// Weights initializers unless `weightsAreInputs`.
std::unique_ptr<Model> basicBlock(int64_t channels, int64_t size, bool weightsAreInputs, int blocks = 1,
                                  bool strided = false) {
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
  auto add = [&](std::string op, std::vector<Value*> inputs, std::vector<Attribute> attrs = {}) {
    return addNode(rw, g, std::move(op), std::move(inputs), std::move(attrs));
  };
  std::vector<Attribute> pads = {Attribute::ofInts("pads", {1, 1, 1, 1})};
  Value* y = x;
  for (int b = 1; b <= blocks; ++b) {
    const std::string n = b == 1 ? "" : std::to_string(b);  // the first block's weights: w1, b1, w2, b2
    Value* w1 = weight("w1" + n, {channels, channels, 3, 3}, uint64_t(10 * b + 1));
    Value* b1 = weight("b1" + n, {channels}, uint64_t(10 * b + 2));
    Value* w2 = weight("w2" + n, {channels, channels, 3, 3}, uint64_t(10 * b + 3));
    Value* b2 = weight("b2" + n, {channels}, uint64_t(10 * b + 4));
    if (weightsAreInputs) rw.setGraphInputs(g, {x, w1, b1, w2, b2});  // IR 3 style: defaults a run may override
    Value* conv1 = add("Conv", {y, w1, b1}, pads);
    rw.renameNode(conv1->producer(), "conv" + std::to_string(b) + "_1");
    Value* conv2 = add("Conv", {add("Relu", {conv1}), w2, b2}, pads);
    rw.renameNode(conv2->producer(), "conv" + std::to_string(b) + "_2");
    y = add("Relu", {add("Add", {conv2, y})});
  }
  if (strided) {
    std::vector<Attribute> down = {Attribute::ofInts("pads", {1, 1, 1, 1}), Attribute::ofInts("strides", {2, 2})};
    y = add("Conv", {y, weight("wd", {channels, channels, 3, 3}, 99)}, down);
    rw.renameNode(y->producer(), "down");
  }
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
  auto reference = referenceExecutor(*model);
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
    EXPECT_EQ(convs[0], "dnnl:winograd+Relu");
    EXPECT_EQ(convs[1], "dnnl:winograd+Add+Relu");
    // oneDNN's ("jit_wino_4x3:avx512_core"), or without AVX-512, where oneDNN has none, ours
    // (ConvWinogradF43, "winograd-4x3:avx2").
    for (const std::string& implementation : dnnlImplementations(fast))
      EXPECT_EQ(implementation.rfind("winograd-4x3:", 0) == 0, !winogradAvailable()) << implementation;
  }
}

TEST(ExecConvWinograd, TheRuleTakesSqueezeNetsWideExpandConvsOnly) {
  const std::vector<int64_t> k3 = {3, 3}, one = {1, 1}, dense = {0, 0};
  // 32 -> 128 on 27 x 27 (fire modules 4 and 5): Winograd. 16 -> 64 on 55 x 55 (fire modules 2 and 3): direct,
  // which took 0.18-0.21 ms against 0.22-0.25; 64 -> 256 on 13 x 13: direct; a stride or dilation: direct.
  EXPECT_TRUE(convWinogradPays(32, 128, k3, one, dense, {1, 128, 27, 27}));
  EXPECT_FALSE(convWinogradPays(16, 64, k3, one, dense, {1, 64, 55, 55}));
  EXPECT_FALSE(convWinogradPays(64, 256, k3, one, dense, {1, 256, 13, 13}));
  EXPECT_FALSE(convWinogradPays(64, 64, k3, {2, 2}, dense, {1, 64, 28, 28}));
  EXPECT_FALSE(convWinogradPays(64, 64, k3, one, {1, 1}, {1, 64, 56, 56}));
  EXPECT_FALSE(convWinogradPays(64, 64, {5, 5}, one, dense, {1, 64, 56, 56}));
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

struct BlocksRun {
  std::vector<RunValue> outputs;
  std::map<std::string, bool> planned;  // per Conv: output planned in channel blocks of 16
  int written = 0;                      // values the last run wrote in channel blocks
};

BlocksRun runWithChannelBlocks(const Model& model, const NamedValues& inputs, bool blocks) {
  ExecutorOptions options;
  options.channelBlocks = blocks;
  BlocksRun out;
  auto executor = runTwice(model, inputs, options, out.outputs);
  if (!executor) return {};
  for (const Assignment& a : executor->assignments())
    if (a.node->opType() == "Conv") out.planned[a.node->name()] = a.channelBlocksOutput;
  out.written = executor->lastRunReport().channelBlockValues;
  return out;
}

// Checks a model's outputs with channel blocks against the reference and against a run without them (the
// same arithmetic in another layout: equal to the bit); returns the run with them.
BlocksRun expectChannelBlocksChangeNoValue(const Model& model) {
  auto reference = referenceExecutor(model);
  EXPECT_TRUE(reference.ok()) << reference.error().toString();
  if (!reference.ok()) return {};
  NamedValues inputs = randomInputs(model, 21);
  auto want = (*reference)->run(inputs);
  EXPECT_TRUE(want.ok()) << want.error().toString();
  BlocksRun with = runWithChannelBlocks(model, inputs, true);
  BlocksRun without = runWithChannelBlocks(model, inputs, false);
  EXPECT_EQ(without.written, 0);
  for (const auto& [conv, on] : without.planned) EXPECT_FALSE(on) << conv;
  if (!want.ok() || with.outputs.size() != 1 || without.outputs.size() != 1) {
    ADD_FAILURE() << "no outputs";
    return with;
  }
  const auto& got = std::get<TensorValue>(with.outputs[0]);
  EXPECT_TRUE(got.isPlainLayout()) << "graph outputs are plain";
  EXPECT_TRUE(closeTensors(got, std::get<TensorValue>((*want)[0]), 1e-4, 1e-5));
  EXPECT_TRUE(closeTensors(got, std::get<TensorValue>(without.outputs[0]), 0.0, 0.0));
  return with;
}

TEST(ExecConvWinograd, ChainsOfItKeepItsChannelBlocks) {
  // Two blocks: conv1_1 -> conv1_2 (input), block 1's output -> conv2_1 (input) and conv2_2 (residual),
  // conv2_1 -> conv2_2; conv2_2's output is the graph's.
  auto model = basicBlock(64, 16, false, 2);
  BlocksRun run = expectChannelBlocksChangeNoValue(*model);
  const bool on = winogradAvailable();  // without it the Convs read and write channels-last
  EXPECT_EQ(run.planned["conv1_1"], on);
  EXPECT_EQ(run.planned["conv1_2"], on);
  EXPECT_EQ(run.planned["conv2_1"], on);
  EXPECT_FALSE(run.planned["conv2_2"]);
  EXPECT_EQ(run.written, on ? 3 : 0);
}

TEST(ExecConvWinograd, OtherReadersGetChannelsLast) {
  // Block 1's output goes to a stride-2 Conv, which is direct: it would reorder blocks into its own layout.
  auto model = basicBlock(64, 16, false, 1, true);
  BlocksRun run = expectChannelBlocksChangeNoValue(*model);
  const bool on = winogradAvailable();
  EXPECT_EQ(run.planned["conv1_1"], on);
  EXPECT_FALSE(run.planned["conv1_2"]);
  EXPECT_FALSE(run.planned["down"]);
  EXPECT_EQ(run.written, on ? 1 : 0);
}

}  // namespace
}  // namespace onyx::exec::testing
