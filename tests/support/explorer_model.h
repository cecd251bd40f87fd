#pragma once
// A small model for the explorer's tests (search, inspector, unknown dims), built with the Rewriter so its
// nodes have exporter-style names:
//   x float[N, S, 256] -> /enc/MatMul (w float[256, 256]) -> mm -> /enc/Relu -> act
//       -> /head/Reshape (flat_shape = [-1, 256]) -> flat float[N*S, 256]            (graph output)
//   img float[N, 3, 224, 224] -> /img/Conv (k float[8, 3, 3, 3]) -> feat [N, 8, 222, 222]
//       -> /img/ConvTranspose (kt float[8, 4, 3, 3]) -> up [N, 4, 224, 224]
//       -> /img/NonZero -> nz int64[4, ?]: unknown, data-dependent                      (graph output)
#include <memory>
#include <vector>

#include "ir/rewriter.h"

namespace onyx::testing {

inline std::unique_ptr<Model> buildExplorerModel() {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", 17}};
  Rewriter rw(*model);
  Graph& g = model->graph();
  Value* x =
      rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim::symbol("N"), Dim::symbol("S"), 256}));
  Value* img =
      rw.addGraphInput(g, "img", Type::tensor(DataType::Float, Shape{Dim::symbol("N"), 3, 224, 224}));
  std::vector<float> weights(256 * 256);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 7) - 3.0f;  // -3..3
  Value* w = rw.addInitializer(g, "w", Tensor::fromValues<float>(DataType::Float, {256, 256}, weights));
  Value* flatShape =
      rw.addInitializer(g, "flat_shape", Tensor::fromValues<int64_t>(DataType::Int64, {2}, {-1, 256}));
  Value* k = rw.addInitializer(
      g, "k",
      Tensor::fromValues<float>(DataType::Float, {8, 3, 3, 3}, std::vector<float>(8 * 3 * 3 * 3, 0.5f)));
  Value* kt = rw.addInitializer(
      g, "kt",
      Tensor::fromValues<float>(DataType::Float, {8, 4, 3, 3}, std::vector<float>(8 * 4 * 3 * 3, 0.25f)));
  Node* matmul =
      rw.addNode(g, {.opType = "MatMul", .name = "/enc/MatMul", .inputs = {x, w}, .outputNames = {"mm"}});
  Node* relu = rw.addNode(
      g, {.opType = "Relu", .name = "/enc/Relu", .inputs = {matmul->output(0)}, .outputNames = {"act"}});
  Node* reshape = rw.addNode(g, {.opType = "Reshape",
                                 .name = "/head/Reshape",
                                 .inputs = {relu->output(0), flatShape},
                                 .outputNames = {"flat"}});
  Node* conv = rw.addNode(
      g, {.opType = "Conv",
          .name = "/img/Conv",
          .inputs = {img, k},
          .outputNames = {"feat"},
          .attributes = {Attribute::ofInts("kernel_shape", {3, 3}), Attribute::ofInts("strides", {1, 1})}});
  Node* convT = rw.addNode(g, {.opType = "ConvTranspose",
                               .name = "/img/ConvTranspose",
                               .inputs = {conv->output(0), kt},
                               .outputNames = {"up"}});
  Node* nonZero = rw.addNode(
      g, {.opType = "NonZero", .name = "/img/NonZero", .inputs = {convT->output(0)}, .outputNames = {"nz"}});
  rw.setGraphOutputs(g, {reshape->output(0), nonZero->output(0)});
  return model;
}

}  // namespace onyx::testing
