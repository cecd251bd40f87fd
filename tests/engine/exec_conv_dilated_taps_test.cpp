// Dilated convolutions where oneDNN has only its im2col GEMM (without AVX-512) run as one product per kernel
// tap (ConvDilatedTaps): ASPP-like blocks whose dilation reaches the padding, from channels-last and plain
// inputs, with bias, Relu, strides and uneven pads, against the reference kernels. engine.forced_avx2 runs
// this file under AVX2, where the profile must name the taps; natively oneDNN's brgconv serves them.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/cpu/cpu_isa.h"
#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

struct DilatedCase {
  int64_t dilation, stride;
  std::vector<int64_t> pads;
  bool fromConv;  // the dilated conv reads a 1 x 1 conv's (channels-last) output, else the graph input
  bool gemmOnlyOnAvx2;  // oneDNN 2.6's AVX2 jit kernel takes dilation 2 here; its SSE4.1 one none of them
};

// x [2, 12, 11, 13] (-> Conv 1 x 1 to 20 channels) -> Conv 3 x 3 (20 -> 24, bias, the case's dilation,
// stride and pads) -> Relu, weights initializers.
std::unique_ptr<Model> dilatedBlock(const DilatedCase& c) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  const int64_t in = c.fromConv ? 20 : 12;
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim(2), Dim(12), Dim(11), Dim(13)}));
  Value* y = x;
  if (c.fromConv) y = addNode(rw, g, "Conv", {x, rw.addInitializer(g, "w0", randomWeights({20, 12, 1, 1}, 3, 0.3f))});
  Value* w = rw.addInitializer(g, "w", randomWeights({24, in, 3, 3}, 4, 1.0f / std::sqrt(float(in * 9))));
  Value* b = rw.addInitializer(g, "b", randomWeights({24}, 5, 0.5f));
  y = addNode(rw, g, "Conv", {y, w, b},
              {Attribute::ofInts("dilations", {c.dilation, c.dilation}), Attribute::ofInts("strides", {c.stride, c.stride}),
               Attribute::ofInts("pads", c.pads)});
  rw.renameNode(y->producer(), "dilated");
  rw.setGraphOutputs(g, {addNode(rw, g, "Relu", {y})});
  return model;
}

TEST(ExecConvDilatedTaps, TapsThatReachThePaddingMatchTheReference) {
  const std::vector<DilatedCase> cases = {
      {2, 1, {2, 2, 2, 2}, true, false},     // every tap reads some of the image
      {6, 1, {6, 6, 6, 6}, true, true},      // the corner taps read a corner each
      {12, 1, {12, 12, 12, 12}, true, true},  // only the centre tap reads the image
      {3, 2, {1, 4, 3, 2}, true, true},      // stride 2, uneven pads
      {4, 1, {4, 4, 4, 4}, false, true},     // a plain input and a plain output (the graph's)
  };
  for (const DilatedCase& c : cases) {
    SCOPED_TRACE("dilation " + std::to_string(c.dilation) + " stride " + std::to_string(c.stride) +
                 (c.fromConv ? " after a conv" : " on the graph input"));
    auto model = dilatedBlock(c);
    auto reference = referenceExecutor(*model);
    ASSERT_TRUE(reference.ok()) << reference.error().toString();
    NamedValues inputs = randomInputs(*model, uint64_t(c.dilation));
    Outcome fast = runGraph(*model, inputs, true);
    auto want = (*reference)->run(inputs);
    ASSERT_TRUE(want.ok()) << want.error().toString();
    ASSERT_EQ(fast.outputs.size(), 1u);
    EXPECT_TRUE(closeTensors(std::get<TensorValue>(fast.outputs[0]), std::get<TensorValue>((*want)[0]), 1e-4, 1e-4));
    int dilated = 0;
    for (size_t i = 0; i < fast.variants.size(); ++i) {
      if (fast.implementations[i].rfind("dilated-taps", 0) == 0) ++dilated;
    }
    const bool taps = cpuIsa() == CpuIsa::Baseline || (cpuIsa() == CpuIsa::Avx2 && c.gemmOnlyOnAvx2);
    EXPECT_EQ(dilated, taps ? 1 : 0) << "the dilated Conv runs as taps where oneDNN has only its GEMM";
  }
}

}  // namespace
}  // namespace onyx::exec::testing
