#pragma once
// Generated models with the shape of real networks, for layout tests, the layout benchmark and demos of
// the graph view at sizes no shared model has. Built with the Rewriter like any edit.
#include <cstddef>
#include <memory>

#include "ir/model.h"

namespace onyx::layout {

// ResNet-50: stem, bottleneck blocks [3, 4, 6, 3] of conv/bn/relu with residual adds and downsample
// branches, pooling and a classifier: 175 nodes named as PyTorch exports them
// ("/layer2/layer2.0/conv1/Conv").
std::unique_ptr<Model> makeResNet50Like();

struct NetworkShape {
  size_t nodes = 10000;       // about this many (whole encoder layers are added)
  size_t layersPerStage = 0;  // >0: layers are grouped under "/encoder/stage.S" as well
};

// A transformer-encoder-like network: embedding, then layers of attention, MLP, residual adds and layer
// norms (~30 nodes each, ~1.2 edges per node) under "/encoder/layer.L/{attention,mlp}/...".
std::unique_ptr<Model> makeNetworkLike(const NetworkShape& shape);

}  // namespace onyx::layout
