#pragma once
// The resource policy (util/limits.h) as shape functions apply it: a shape-carrying input's declared length
// becomes the output's rank, one Dim each, so it is checked before any shape of that rank is built.
#include <cstddef>
#include <optional>

#include "shapes/shape_context.h"
#include "util/expected.h"

namespace onyx {

// The declared length of 1-D input i that carries a shape (Reshape's and Expand's shape, ConstantOfShape's
// input): the rank it gives. nullopt when not known; an error naming the node when over the policy's limit.
Expected<std::optional<size_t>> declaredShapeLength(const ShapeContext& ctx, size_t i);

}  // namespace onyx
