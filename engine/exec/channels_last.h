// Channels-last storage between the kernels that prefer it (oneDNN's convolutions write acdb on machines
// with AVX-512): the executor keeps a Conv's output channels-last when every reader takes that layout, so
// Conv -> Conv chains skip two transposes each. Element-wise nodes in between are layout-transparent: they
// compute on the same bytes read as a plain (N, spatial..., C) tensor.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "exec/tensor_value.h"
#include "ir/graph.h"

namespace onyx::exec {

// Ops whose output element depends only on the same element of each input (plus broadcast operands).
bool isLayoutTransparent(const Node& node);

// The inputs of a layout-transparent node viewed in channels-last order, when at least one is channels-last
// and every other operand is a scalar or broadcasts along batch and channels only ([C,1,1], [1,C,1,1]).
// `logical` receives the dims of the channels-last operands. Nullopt: run the node on plain inputs instead.
std::optional<std::vector<RunValue>> channelsLastViews(std::span<const RunValue* const> inputs, Dims& logical);

// The output computed on channelsLastViews as a channels-last tensor of `logical` dims; false when the
// kernel's output does not have the expected (N, spatial..., C) dims.
bool adoptChannelsLast(RunValue& output, const Dims& logical);

// The value with channels-last tensors converted to plain storage (sequences never hold them).
RunValue plainLayout(const RunValue& value);

// A batch of (rows x cols) float matrices transposed to (cols x rows), in tiles that keep both sides in cache:
// channels-last to plain storage (rows = pixels, cols = channels) and back (tensor_value.cpp).
void transposeBatches(const float* src, float* dst, int64_t batches, int64_t rows, int64_t cols);

// For a kernel that computes on channels-last rows of float32 (N, C, spatial...) tensors: a plain input is
// read through a kept channels-last copy, and a plain output written to a kept buffer, transposed into place
// by finish(). The buffers stay between runs.
class ChannelsLastStaging {
 public:
  // x's values in channels-last order: its own storage, or the copy.
  const float* input(const TensorValue& x);
  // Where to write y's values in channels-last order: y itself when it is stored so, else the buffer.
  float* output(TensorValue& y);
  // A plain y gets the buffer's values.
  void finish(TensorValue& y) const;

 private:
  std::vector<float> input_, output_;
};

}  // namespace onyx::exec
