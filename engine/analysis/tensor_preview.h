#pragma once
// A short look at a constant tensor for the inspector: its type, a few statistics and its first values.
// Statistics cover every element (NaNs are counted, not averaged), so a preview of a large weight costs one
// pass over it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor.h"

namespace onyx {

struct TensorPreview {
  std::string dtype;  // "float32"
  std::string shape;  // "[64, 3, 7, 7]"; "[]" for a scalar
  int64_t elements = 0;
  size_t bytes = 0;
  bool hasStatistics = false;  // numeric elements, at least one of them not NaN
  double min = 0;
  double max = 0;
  double mean = 0;
  int64_t nanCount = 0;
  std::vector<std::string> firstValues;  // "0.125", "-3", "true", "\"text\""
  bool truncated = false;                // more elements than firstValues holds
  std::string error;                     // why the data could not be read (external file missing...)

  // "float32[64, 3, 7, 7], min -0.41, max 0.39, mean 0.0012: [0.1, -0.2, ...]".
  std::string summary() const;
};

TensorPreview previewTensor(const Tensor& tensor, size_t firstCount = 8);

// "%.6g" formatting, as the previews print numbers: 0.125, 1e-05, -3.
std::string formatNumber(double value);

}  // namespace onyx
