#pragma once
// Reading constant tensors as symbolic values (the small integer tensors shape arithmetic works on).
#include <optional>
#include <vector>

#include "ir/dim.h"
#include "ir/tensor.h"

namespace onyx {

// Tensors with more elements are not tracked as values: shape tensors are short, and copying big
// constants into dims would cost time for nothing.
inline constexpr int64_t kMaxValueElements = 64;

// The elements (row-major) of a small integer, bool or integral-valued float tensor; nullopt otherwise.
std::optional<std::vector<Dim>> smallTensorValue(const Tensor& tensor);
// Elements of a float or integer tensor as doubles (for scales and similar attributes); nullopt for other types.
std::optional<std::vector<double>> tensorAsDoubles(const Tensor& tensor);

}  // namespace onyx
