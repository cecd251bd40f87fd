// A MatMul or Gemm of one row by constant weights (a classifier's Linear at batch 1) runs as a matrix-vector
// product over the weights packed once (ops/math/packed_gemv.h), alpha and beta * C included, and matches the
// reference kernels. More rows, weights a caller may change and fused epilogues stay oneDNN's.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

struct Product {
  const char* why;
  std::string op;  // "Gemm" or "MatMul"
  int64_t rows, k, n;
  bool transB = true;  // Gemm: W is [n, k]
  float alpha = 1.0f, beta = 1.0f;
  bool withC = true;                     // Gemm: C of [n]
  bool weightsAreInputs = false;
  bool relu = false;                     // MatMul: a fused Relu after
  bool gemv = true;                      // the kernel expected
};

std::unique_ptr<Model> productModel(const Product& p) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim(p.rows), Dim(p.k)}));
  const bool transposed = p.op == "Gemm" && p.transB;
  const std::vector<int64_t> wDims = transposed ? std::vector<int64_t>{p.n, p.k} : std::vector<int64_t>{p.k, p.n};
  Value* w = rw.addInitializer(g, "w", randomWeights(wDims, 1, 1.0f / std::sqrt(float(p.k))));
  std::vector<Value*> graphInputs = {x, w};
  std::vector<Value*> inputs = {x, w};
  std::vector<Attribute> attrs;
  if (p.op == "Gemm") {
    attrs = {Attribute::ofInt("transB", p.transB ? 1 : 0), Attribute::ofFloat("alpha", p.alpha),
             Attribute::ofFloat("beta", p.beta)};
    if (p.withC) inputs.push_back(rw.addInitializer(g, "c", randomWeights({p.n}, 2, 1.0f)));
  }
  if (p.weightsAreInputs) rw.setGraphInputs(g, graphInputs);
  Value* y = addNode(rw, g, p.op, inputs, attrs);
  if (p.relu) y = addNode(rw, g, "Relu", {y});
  rw.setGraphOutputs(g, {y});
  return model;
}

void expectMatchesReference(const Product& p) {
  SCOPED_TRACE(p.why);
  auto model = productModel(p);
  auto reference = referenceExecutor(*model);
  ASSERT_TRUE(reference.ok()) << reference.error().toString();
  for (uint64_t seed : {3, 4}) {
    NamedValues inputs = randomInputs(*model, seed);
    if (p.weightsAreInputs) {
      const bool transposed = p.op == "Gemm" && p.transB;
      inputs.push_back({"w", randomTensor(DataType::Float, transposed ? Dims{p.n, p.k} : Dims{p.k, p.n}, seed,
                                          -0.1f, 0.1f)});
    }
    Outcome fast = runGraph(*model, inputs, true);
    auto want = (*reference)->run(inputs);
    ASSERT_TRUE(want.ok()) << want.error().toString();
    ASSERT_EQ(fast.outputs.size(), 1u);
    EXPECT_TRUE(closeTensors(std::get<TensorValue>(fast.outputs[0]), std::get<TensorValue>((*want)[0]), 1e-5, 1e-6));
    const std::vector<std::string> implementations = dnnlImplementations(fast);
    ASSERT_EQ(implementations.size(), 1u);
    EXPECT_EQ(implementations[0].rfind("gemv:", 0) == 0, p.gemv) << implementations[0];
  }
}

TEST(ExecMatmulGemv, OneRowByConstantWeightsMatchesTheReference) {
  // resnet18's classifier (16 panels of 64 outputs, split between threads); a [k, n] B read by columns,
  // with alpha, beta and a last panel part empty; a MatMul without C.
  expectMatchesReference({"resnet18's fc", "Gemm", 1, 512, 1000});
  expectMatchesReference({"B as [k, n], alpha and beta", "Gemm", 1, 70, 130, false, 0.5f, 2.0f});
  expectMatchesReference({"no C", "Gemm", 1, 33, 65, true, 1.0f, 1.0f, false});
  expectMatchesReference({"MatMul", "MatMul", 1, 96, 200});
}

TEST(ExecMatmulGemv, OtherProductsStayOneDnns) {
  expectMatchesReference({"two rows", "Gemm", 2, 64, 100, true, 1.0f, 1.0f, true, false, false, false});
  expectMatchesReference({"weights a caller may change", "Gemm", 1, 64, 100, true, 1.0f, 1.0f, true, true,
                          false, false});
  expectMatchesReference({"a fused Relu", "MatMul", 1, 64, 100, true, 1.0f, 1.0f, true, false, true, false});
}

}  // namespace
}  // namespace onyx::exec::testing
