// A Mul by one value per channel read only by a 1 x 1 Conv (squeeze-excitation's x * s) folded into that
// Conv: the Conv takes s into its weights for the run where the image has more than 4x as many pixels as
// output channels, and otherwise multiplies x itself. Each graph runs with the folding on and off on the
// same seeded inputs; the profile shows the Mul as fused.
#include <gtest/gtest.h>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

int fusedCount(const Outcome& outcome) {
  return int(std::count_if(outcome.variants.begin(), outcome.variants.end(),
                           [](const std::string& v) { return v.rfind("fused into", 0) == 0; }));
}

struct Block {
  int64_t size;             // x [1, 8, size, size]
  bool scaleFirst = false;  // Mul (se, a) instead of Mul (a, se)
  bool residual = false;    // a bias and x added after the projection
};

// EfficientNet's block with constant weights, as exported: Conv+SiLU, pooled, squeezed and excited, the
// scale multiplied in and projected by a 1 x 1 Conv to 8 channels.
std::unique_ptr<Model> excitationBlock(const Block& b) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim(1), Dim(8), Dim(b.size), Dim(b.size)}));
  auto weight = [&](const std::string& name, std::vector<int64_t> dims, uint64_t seed) {
    return rw.addInitializer(g, name, randomWeights(dims, seed, 0.5f));
  };
  auto add = [&](std::string op, std::vector<Value*> inputs) { return addNode(rw, g, std::move(op), std::move(inputs), {}); };
  Value* c = add("Conv", {x, weight("w", {16, 8, 1, 1}, 1)});
  Value* a = add("Mul", {c, add("Sigmoid", {c})});
  Value* r = add("Relu", {add("Conv", {add("GlobalAveragePool", {a}), weight("wr", {4, 16, 1, 1}, 2)})});
  Value* se = add("Sigmoid", {add("Conv", {r, weight("we", {16, 4, 1, 1}, 3)})});
  Value* m = b.scaleFirst ? add("Mul", {se, a}) : add("Mul", {a, se});
  Value* y = b.residual ? add("Add", {add("Conv", {m, weight("wp", {8, 16, 1, 1}, 4), weight("bp", {8}, 5)}), x})
                        : add("Conv", {m, weight("wp", {8, 16, 1, 1}, 4)});
  rw.setGraphOutputs(g, {y});
  return model;
}

// Fused and not, the same output; the Mul fused besides the SiLU (2 nodes), the Relu, the Sigmoid and the
// residual Add.
void expectScaleFolded(const Block& b) {
  auto model = excitationBlock(b);
  NamedValues inputs = randomInputs(*model, 9);
  Outcome fused = runGraph(*model, inputs, true);
  Outcome plain = runGraph(*model, inputs, false);
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_TRUE(closeTensors(std::get<TensorValue>(fused.outputs[0]), std::get<TensorValue>(plain.outputs[0]), 1e-5, 1e-5));
  EXPECT_EQ(fusedCount(fused), b.residual ? 6 : 5);
  EXPECT_EQ(fusedCount(plain), 0);
}

TEST(ExecChannelScale, TheConvTakesTheScaleIntoItsWeights) {
  // 20 x 20 = 400 pixels, 8 output channels: the weights' product.
  expectScaleFolded({20});
  expectScaleFolded({20, true});         // the scale first
  expectScaleFolded({20, false, true});  // a bias and a residual after the projection
}

TEST(ExecChannelScale, FewPixelsMultiplyInTheConv) {
  // 3 x 3 = 9 pixels, fewer than 4x the 8 output channels: the Conv multiplies x by s itself.
  expectScaleFolded({3});
  expectScaleFolded({1, true});  // one pixel: the pixel GEMV's shape
}

TEST(ExecChannelScale, StaysAMulWhereTheConvCannotTakeIt) {
  // The scale from a pooled t: a 3 x 3 projection, a strided one, and a product that is a graph output too.
  const std::string scale = R"(
      g = GlobalAveragePool (t)
      s = Sigmoid (g)
      m = Mul (x, s)
  )";
  expectFusion(std::string(kHeader) + R"(g (float[1,4,6,6] x, float[1,4,3,3] t, float[5,4,3,3] w) => (float[1,5,4,4] y) {)" +
                   scale + "y = Conv (m, w)\n}",
               "dnnl", 0);
  expectFusion(std::string(kHeader) + R"(g (float[1,4,6,6] x, float[1,4,3,3] t, float[5,4,1,1] w) => (float[1,5,3,3] y) {)" +
                   scale + "y = Conv <strides = [2, 2]> (m, w)\n}",
               "dnnl", 0);
  expectFusion(std::string(kHeader) +
                   R"(g (float[1,4,6,6] x, float[1,4,3,3] t, float[5,4,1,1] w) => (float[1,5,6,6] y, float[1,4,6,6] m) {)" +
                   scale + "y = Conv (m, w)\n}",
               "dnnl", 0);
  // A gate of two feature maps (no global pooling behind either): not a channel scale.
  expectFusion(std::string(kHeader) + R"(g (float[1,4,6,6] x, float[1,4,6,6] t, float[5,4,1,1] w) => (float[1,5,6,6] y) {
      s = Sigmoid (t)
      m = Mul (x, s)
      y = Conv (m, w)
    })",
               "dnnl", 0);
}

TEST(ExecChannelScale, OtherTypesAndLayoutsReadTheProduct) {
  // Double: the Conv's reference kernel reads the product the executor makes; a scale per image of two.
  auto model = parseModelText(std::string(kHeader) + R"(g (double[2,3,5,5] x, double[2,3,4,4] t, double[4,3,1,1] w) => (double[2,4,5,5] y) {
      s = GlobalAveragePool (t)
      m = Mul (x, s)
      y = Conv (m, w)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  NamedValues inputs = {{"x", randomTensor(DataType::Double, {2, 3, 5, 5}, 1, -1.0f, 1.0f)},
                        {"t", randomTensor(DataType::Double, {2, 3, 4, 4}, 2, -1.0f, 1.0f)},
                        {"w", randomTensor(DataType::Double, {4, 3, 1, 1}, 3, -1.0f, 1.0f)}};
  Outcome fused = runGraph(**model, inputs, true);
  Outcome plain = runGraph(**model, inputs, false);
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_TRUE(closeTensors(std::get<TensorValue>(fused.outputs[0]), std::get<TensorValue>(plain.outputs[0]), 1e-12, 1e-12));
  EXPECT_EQ(fusedCount(fused), 1);
  // Float, a scale per image (batch 2): the Conv multiplies, in the plain layout of the graph input.
  expectFusion(std::string(kHeader) + R"(g (float[2,4,9,9] x, float[2,4,3,3] t, float[3,4,1,1] w) => (float[2,3,9,9] y) {
      s = GlobalAveragePool (t)
      m = Mul (x, s)
      y = Conv (m, w)
    })",
               "dnnl", 1);
}

TEST(ExecChannelScale, OperandsThatDoNotBroadcastAreAnErrorNamingTheMul) {
  auto model = parseModelText(std::string(kHeader) + R"(g (float[1,4,6,6] x, float[1,3,2,2] t, float[5,4,1,1] w) => (float[1,5,6,6] y) {
      s = GlobalAveragePool (t)
      m = Mul (x, s)
      y = Conv (m, w)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  for (bool fuse : {true, false}) {
    const std::string message = runError(**model, fuse);
    EXPECT_NE(message.find("Mul cannot broadcast"), std::string::npos) << message;
    EXPECT_NE(message.find("(Mul (#2)"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace onyx::exec::testing
