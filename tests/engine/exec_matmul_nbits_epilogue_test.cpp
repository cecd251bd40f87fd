// MatMulNBits' panel kernel computes the element-wise nodes after it (a bias Add, GELU as exporters write
// it, scalings, activations, a residual Add) on each tile of its output (ops/math/matmul_epilogue_cpu.h):
// fused and node-by-node runs agree, the profile names the absorbed nodes, and an operand the tiles cannot
// read (a residual broadcasting along rows) leaves the nodes to run on their own.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

// 300 rows (two of the kernel's row chunks), K 64 in blocks of 32, N 70 (a last panel of 6 columns).
constexpr int64_t kRows = 300, kK = 64, kN = 70, kBlockSize = 32;

Tensor scalar(float v) { return Tensor::fromValues<float>(DataType::Float, {}, std::vector<float>{v}); }

// A model of x [1, rows, K] -> MatMulNBits (4 bits, random codes and scales) -> `epilogue`.
template <class Epilogue>
std::unique_ptr<Model> nbitsModel(Epilogue epilogue) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}, {"com.microsoft", 1}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim(1), Dim(kRows), Dim(kK)}));
  const int64_t blocks = kK / kBlockSize, blob = kBlockSize / 2;
  std::vector<uint8_t> codes(size_t(kN * blocks * blob));
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = uint8_t((i * 37 + 11) % 256);
  Value* b = rw.addInitializer(g, "b", Tensor::fromValues<uint8_t>(DataType::Uint8, {kN, blocks, blob}, codes));
  Tensor scales = randomWeights({kN * blocks}, 7, 0.05f);
  Value* s = rw.addInitializer(g, "scales", std::move(scales));
  Rewriter::NodeSpec spec;
  spec.opType = "MatMulNBits";
  spec.domain = "com.microsoft";
  spec.name = "product";
  spec.inputs = {x, b, s};
  spec.outputNames = {"product_out"};
  spec.attributes = {Attribute::ofInt("K", kK), Attribute::ofInt("N", kN), Attribute::ofInt("bits", 4),
                     Attribute::ofInt("block_size", kBlockSize)};
  Value* y = rw.addNode(g, spec)->outputs()[0];
  rw.setGraphOutputs(g, {epilogue(rw, g, y)});
  return model;
}

// Fused and unfused runs agree, one node reports `variant` and `absorbed` nodes report being fused into it.
void expectFused(const Model& model, const std::string& variant, int absorbed) {
  NamedValues inputs = randomInputs(model, 5);
  Outcome fused = runGraph(model, inputs, true);
  Outcome plain = runGraph(model, inputs, false);
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_TRUE(closeTensors(std::get<TensorValue>(fused.outputs[0]), std::get<TensorValue>(plain.outputs[0]), 1e-5, 1e-6));
  EXPECT_EQ(std::count(fused.variants.begin(), fused.variants.end(), variant), 1) << variant;
  int count = 0;
  for (const std::string& v : fused.variants) count += v.rfind("fused into", 0) == 0;
  EXPECT_EQ(count, absorbed);
  for (const std::string& v : plain.variants) EXPECT_EQ(v.find('+'), std::string::npos) << v;
}

TEST(ExecMatMulNBitsEpilogue, BiasGeluAndResidualFuse) {
  // A BERT feed-forward layer's first half as PyTorch exports it, then the residual of the layer.
  auto model = nbitsModel([](Rewriter& rw, Graph& g, Value* y) {
    Value* biased = addNode(rw, g, "Add", {y, rw.addInitializer(g, "bias", randomWeights({kN}, 8, 1.0f))});
    Value* scaled = addNode(rw, g, "Div", {biased, rw.addInitializer(g, "root2", scalar(1.41421356f))});
    Value* erf = addNode(rw, g, "Erf", {scaled});
    Value* plusOne = addNode(rw, g, "Add", {erf, rw.addInitializer(g, "one", scalar(1.0f))});
    Value* times = addNode(rw, g, "Mul", {biased, plusOne});
    Value* gelu = addNode(rw, g, "Mul", {times, rw.addInitializer(g, "half", scalar(0.5f))});
    Value* residual = rw.addGraphInput(g, "r", Type::tensor(DataType::Float, Shape{Dim(1), Dim(kRows), Dim(kN)}));
    return addNode(rw, g, "Add", {gelu, residual});
  });
  expectFused(*model, "panels+Add+Div+Erf+Add+Mul+Mul+Add", 7);
}

TEST(ExecMatMulNBitsEpilogue, ScalingsRowResidualAndActivationsFuse) {
  auto model = nbitsModel([](Rewriter& rw, Graph& g, Value* y) {
    Value* v = addNode(rw, g, "Div", {y, rw.addInitializer(g, "d", scalar(4.0f))});
    v = addNode(rw, g, "Sub", {v, rw.addInitializer(g, "s", scalar(0.25f))});
    Value* row = rw.addGraphInput(g, "r", Type::tensor(DataType::Float, Shape{Dim(kN)}));
    v = addNode(rw, g, "Add", {row, v});
    v = addNode(rw, g, "LeakyRelu", {v}, {Attribute::ofFloat("alpha", 0.2f)});
    v = addNode(rw, g, "Tanh", {v});
    v = addNode(rw, g, "Sigmoid", {v});
    return addNode(rw, g, "Relu", {v});
  });
  expectFused(*model, "panels+Div+Sub+Add+LeakyRelu+Tanh+Sigmoid+Relu", 7);
}

TEST(ExecMatMulNBitsEpilogue, ResidualAlongRowsRunsOnItsOwn) {
  // [1, rows, 1] adds one value per row: the tiles read residuals of the output's dims or one row only.
  auto model = nbitsModel([](Rewriter& rw, Graph& g, Value* y) {
    Value* column = rw.addGraphInput(g, "r", Type::tensor(DataType::Float, Shape{Dim(1), Dim(kRows), Dim(1)}));
    return addNode(rw, g, "Add", {y, column});
  });
  NamedValues inputs = randomInputs(*model, 5);
  Outcome fused = runGraph(*model, inputs, true);
  Outcome plain = runGraph(*model, inputs, false);
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_TRUE(closeTensors(std::get<TensorValue>(fused.outputs[0]), std::get<TensorValue>(plain.outputs[0]), 0, 0));
  for (const std::string& v : fused.variants) EXPECT_EQ(v.find('+'), std::string::npos) << v;
  EXPECT_EQ(std::count(fused.variants.begin(), fused.variants.end(), "panels"), 1);
}

}  // namespace
}  // namespace onyx::exec::testing
