// Our Winograd F(4 x 4, 3 x 3) (ConvWinogradF43), which serves the convs of the Winograd rule where oneDNN has
// no Winograd kernel (without AVX-512) and anywhere under ONYX_WINOGRAD=own: sizes whose tiles cross the
// image's edge, uneven pads, channel counts off the vector and panel widths, two images, plain and
// channels-last inputs, outputs and residuals, against the reference kernels. engine.forced_avx2 runs this
// file under AVX2 too, where the rule alone picks it.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

struct F43Case {
  int64_t in, out, height, width;
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool fromConv;              // the Conv reads a 1 x 1 Conv's (channels-last) output, else the graph input
  bool residual;              // Add of a residual before the Relu: a 1 x 1 Conv's output with fromConv, else an input
  bool toConv;                // a 1 x 1 Conv reads the output (channels-last), else it is the graph's (plain)
  const char* why;
};

// x [2, 16, H, W] -> (Conv 1 x 1 to `in` channels) -> Conv 3 x 3 (in -> out, bias, pads) -> (Add residual)
// -> Relu -> (Conv 1 x 1 to 8 channels), weights initializers.
std::unique_ptr<Model> winogradGraph(const F43Case& c) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  const int64_t xChannels = c.fromConv ? 16 : c.in;
  const int64_t outH = c.height + c.pads[0] + c.pads[2] - 2, outW = c.width + c.pads[1] + c.pads[3] - 2;
  Value* x = rw.addGraphInput(
      g, "x", Type::tensor(DataType::Float, Shape{Dim(2), Dim(xChannels), Dim(c.height), Dim(c.width)}));
  std::vector<Value*> inputs = {x};
  Value* y = x;
  if (c.fromConv)
    y = addNode(rw, g, "Conv", {x, rw.addInitializer(g, "w0", randomWeights({c.in, 16, 1, 1}, 3, 0.25f))});
  Value* w = rw.addInitializer(g, "w", randomWeights({c.out, c.in, 3, 3}, 4, 1.0f / std::sqrt(float(c.in * 9))));
  Value* b = rw.addInitializer(g, "b", randomWeights({c.out}, 5, 0.5f));
  y = addNode(rw, g, "Conv", {y, w, b}, {Attribute::ofInts("pads", c.pads)});
  rw.renameNode(y->producer(), "winograd");
  if (c.residual) {
    Value* r = nullptr;
    if (c.fromConv && outH == c.height && outW == c.width) {
      r = addNode(rw, g, "Conv", {x, rw.addInitializer(g, "wr", randomWeights({c.out, 16, 1, 1}, 6, 0.25f))});
    } else {
      r = rw.addGraphInput(g, "r", Type::tensor(DataType::Float, Shape{Dim(2), Dim(c.out), Dim(outH), Dim(outW)}));
      inputs.push_back(r);
    }
    y = addNode(rw, g, "Add", {y, r});
  }
  rw.setGraphInputs(g, inputs);
  y = addNode(rw, g, "Relu", {y});
  if (c.toConv) y = addNode(rw, g, "Conv", {y, rw.addInitializer(g, "w9", randomWeights({8, c.out, 1, 1}, 7, 0.1f))});
  rw.setGraphOutputs(g, {y});
  return model;
}

int ownWinogradConvs(const Outcome& outcome) {
  int count = 0;
  for (const std::string& implementation : outcome.implementations)
    if (implementation.rfind("winograd-4x3:", 0) == 0) ++count;
  return count;
}

const std::vector<F43Case> kCases = {
    {35, 70, 15, 14, {1, 1, 1, 1}, false, true, false, "plain input, residual and output; 35 -> 70 channels"},
    {32, 64, 14, 14, {1, 1, 1, 1}, true, true, true, "channels-last input, residual and output"},
    {48, 96, 17, 19, {0, 2, 2, 0}, true, false, false, "uneven pads, tiles past the edge on both axes"},
    {64, 64, 16, 15, {1, 0, 1, 0}, true, true, true, "a plain residual of 16 x 13, channels-last output"},
};

TEST(ExecConvWinogradF43, MatchesTheReferenceWhereverItsTilesFall) {
  const ScopedEnv own("ONYX_WINOGRAD", "own");
  for (const F43Case& c : kCases) {
    SCOPED_TRACE(c.why);
    auto model = winogradGraph(c);
    auto reference = referenceExecutor(*model);
    ASSERT_TRUE(reference.ok()) << reference.error().toString();
    for (uint64_t seed : {11, 12}) {
      NamedValues inputs = randomInputs(*model, seed);
      Outcome fast = runGraph(*model, inputs, true);
      auto want = (*reference)->run(inputs);
      ASSERT_TRUE(want.ok()) << want.error().toString();
      ASSERT_EQ(fast.outputs.size(), 1u);
      // Winograd rounds differently from direct summation, as oneDNN's does (ExecConvWinograd).
      EXPECT_TRUE(
          closeTensors(std::get<TensorValue>(fast.outputs[0]), std::get<TensorValue>((*want)[0]), 1e-4, 1e-4));
      EXPECT_EQ(ownWinogradConvs(fast), 1) << "the 3 x 3 Conv runs as ours";
    }
  }
}

TEST(ExecConvWinogradF43, UnfusedEpilogueGivesTheSameOutputs) {
  const ScopedEnv own("ONYX_WINOGRAD", "own");
  const F43Case& c = kCases[1];
  auto model = winogradGraph(c);
  NamedValues inputs = randomInputs(*model, 13);
  Outcome fused = runGraph(*model, inputs, true);
  Outcome plain = runGraph(*model, inputs, false);
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_TRUE(closeTensors(std::get<TensorValue>(fused.outputs[0]), std::get<TensorValue>(plain.outputs[0]), 1e-5,
                           1e-5));
  EXPECT_EQ(ownWinogradConvs(plain), 1);
}

TEST(ExecConvWinogradF43, TakesTheRuleWhereOneDnnHasNoWinograd) {
  // Unforced, ours serves the rule's convs exactly where oneDNN 2.6 has no Winograd kernel (AVX-512 only).
  const bool oneDnnHasIt = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  auto model = winogradGraph(kCases[1]);
  Outcome fast = runGraph(*model, randomInputs(*model, 14), true);
  EXPECT_EQ(ownWinogradConvs(fast), oneDnnHasIt ? 0 : 1);
  // Outside the rule (16 channels in) it is never ours, forced or not.
  const ScopedEnv own("ONYX_WINOGRAD", "own");
  auto narrow = winogradGraph({16, 64, 14, 14, {1, 1, 1, 1}, false, false, false, "16 channels in"});
  EXPECT_EQ(ownWinogradConvs(runGraph(*narrow, randomInputs(*narrow, 15), true)), 0);
}

}  // namespace
}  // namespace onyx::exec::testing
