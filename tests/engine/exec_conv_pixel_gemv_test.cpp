// Convs of one input pixel through a 1 x 1 kernel (squeeze-excitation's fc1 and fc2) run as a matrix-vector
// product over packed weights (ops/nn/conv_pixel_gemv.h), their fused epilogue included, and match the
// reference kernels. Convs with more pixels, padding or weights a caller may change stay oneDNN's.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

struct Block {
  int64_t channels, squeezed, size;  // x [1, channels, size, size]; fc1 to `squeezed` channels and back
  std::vector<int64_t> pads = {0, 0, 0, 0};
  bool weightsAreInputs = false;
};

// x -> Conv(w1, b1) -> Sigmoid -> Mul (SiLU) -> Conv(w2, b2) -> Sigmoid: EfficientNet's excitation.
std::unique_ptr<Model> excitation(const Block& b) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim(1), Dim(b.channels), Dim(b.size), Dim(b.size)}));
  auto weight = [&](const std::string& name, std::vector<int64_t> dims, uint64_t seed, int64_t fanIn) {
    return rw.addInitializer(g, name, randomWeights(dims, seed, 2.0f / std::sqrt(float(fanIn))));
  };
  Value* w1 = weight("w1", {b.squeezed, b.channels, 1, 1}, 1, b.channels);
  Value* b1 = weight("b1", {b.squeezed}, 2, 1);
  Value* w2 = weight("w2", {b.channels, b.squeezed, 1, 1}, 3, b.squeezed);
  Value* b2 = weight("b2", {b.channels}, 4, 1);
  auto add = [&](std::string op, std::vector<Value*> inputs, std::vector<Attribute> attrs = {}) {
    return addNode(rw, g, std::move(op), std::move(inputs), std::move(attrs));
  };
  if (b.weightsAreInputs) rw.setGraphInputs(g, {x, w1, b1, w2, b2});
  std::vector<Attribute> pads = {Attribute::ofInts("pads", b.pads)};
  Value* c1 = add("Conv", {x, w1, b1}, pads);
  Value* h = add("Mul", {add("Sigmoid", {c1}), c1});
  Value* y = add("Sigmoid", {add("Conv", {h, w2, b2})});
  rw.setGraphOutputs(g, {y});
  return model;
}

NamedValues inputsOf(const Model& model, const Block& b, uint64_t seed) {
  NamedValues inputs = randomInputs(model, seed);
  if (b.weightsAreInputs) {  // randomInputs skips initializers; pass them anew
    inputs.push_back({"w1", randomTensor(DataType::Float, {b.squeezed, b.channels, 1, 1}, 1, -0.1f, 0.1f)});
    inputs.push_back({"b1", randomTensor(DataType::Float, {b.squeezed}, 2, -0.1f, 0.1f)});
    inputs.push_back({"w2", randomTensor(DataType::Float, {b.channels, b.squeezed, 1, 1}, 3, -0.1f, 0.1f)});
    inputs.push_back({"b2", randomTensor(DataType::Float, {b.channels}, 4, -0.1f, 0.1f)});
  }
  return inputs;
}

void expectMatchesReference(const Block& b, bool gemv) {
  auto model = excitation(b);
  auto reference = referenceExecutor(*model);
  ASSERT_TRUE(reference.ok()) << reference.error().toString();
  for (uint64_t seed : {7, 8}) {
    NamedValues inputs = inputsOf(*model, b, seed);
    Outcome fast = runGraph(*model, inputs, true);
    auto want = (*reference)->run(inputs);
    ASSERT_TRUE(want.ok()) << want.error().toString();
    ASSERT_EQ(fast.outputs.size(), 1u);
    EXPECT_TRUE(closeTensors(std::get<TensorValue>(fast.outputs[0]), std::get<TensorValue>((*want)[0]), 1e-5, 1e-6));
    // Both convs fused their activations, whichever kernel ran them.
    std::vector<std::string> variants;
    for (const std::string& v : fast.variants)
      if (v.rfind("dnnl", 0) == 0) variants.push_back(v);
    EXPECT_EQ(variants, (std::vector<std::string>{"dnnl+Sigmoid+Mul", "dnnl+Sigmoid"}));
    for (const std::string& implementation : dnnlImplementations(fast))
      EXPECT_EQ(implementation.rfind("pixel-gemv:", 0) == 0, gemv) << implementation;
  }
}

TEST(ExecConvPixelGemv, ExcitationBlocksMatchTheReference) {
  // 70 and 20 channels leave the last 64-output panel part empty; 1152 <-> 48 is EfficientNet-B0's widest,
  // whose fc2 splits its 18 panels between threads.
  for (const Block& b : {Block{70, 20, 1}, Block{1152, 48, 1}, Block{3, 1, 1}}) {
    SCOPED_TRACE(std::to_string(b.channels) + " -> " + std::to_string(b.squeezed));
    expectMatchesReference(b, true);
  }
}

TEST(ExecConvPixelGemv, OtherConvsStayOneDnns) {
  struct Case {
    Block block;
    const char* why;
  };
  for (const Case& c : {Case{Block{16, 4, 2}, "2 x 2 pixels"}, Case{Block{16, 4, 1, {1, 1, 1, 1}}, "padding"},
                        Case{Block{16, 4, 1, {0, 0, 0, 0}, true}, "weights a caller may change"}}) {
    SCOPED_TRACE(c.why);
    expectMatchesReference(c.block, false);
  }
}

// One executor, inputs of changing spatial size: each run takes the plan (and pixel-GEMV answer) of its own
// dims, though the kernel keeps the last run's plan, memory objects and answer for the next.
TEST(ExecConvPixelGemv, RunsOfChangingSizesTakeTheirOwnPlans) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(
      g, "x", Type::tensor(DataType::Float, Shape{Dim(1), Dim(24), Dim::symbol("H"), Dim::symbol("W")}));
  Value* w = rw.addInitializer(g, "w", randomWeights({40, 24, 1, 1}, 5, 0.3f));
  Value* b = rw.addInitializer(g, "b", randomWeights({40}, 6, 0.1f));
  Value* c = addNode(rw, g, "Conv", {x, w, b}, {});
  rw.setGraphOutputs(g, {addNode(rw, g, "Sigmoid", {c}, {})});
  auto reference = referenceExecutor(*model);
  ASSERT_TRUE(reference.ok()) << reference.error().toString();
  auto fast = Executor::create(*model, ExecutorOptions());
  ASSERT_TRUE(fast.ok()) << fast.error().toString();
  uint64_t seed = 20;
  for (auto [h, wd] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 5}, {7, 9}, {1, 1}, {5, 5}, {7, 9}}) {
    SCOPED_TRACE(std::to_string(h) + " x " + std::to_string(wd));
    NamedValues inputs = {{"x", randomTensor(DataType::Float, {1, 24, h, wd}, seed++, -1.0f, 1.0f)}};
    auto got = (*fast)->run(inputs);
    auto want = (*reference)->run(inputs);
    ASSERT_TRUE(got.ok()) << got.error().toString();
    ASSERT_TRUE(want.ok()) << want.error().toString();
    const TensorValue& y = std::get<TensorValue>((*got)[0]);
    EXPECT_EQ(y.dims(), (Dims{1, 40, h, wd}));
    EXPECT_TRUE(closeTensors(y, std::get<TensorValue>((*want)[0]), 1e-5, 1e-6));
  }
}

}  // namespace
}  // namespace onyx::exec::testing
