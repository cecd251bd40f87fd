#pragma once
// FLOPs a node would take, estimated from its attributes and inferred shapes alone (no run): the weights
// that split one measured kernel's time over the nodes it stands for (origin_profile.h). Multiply-adds count
// two; element-wise ops count what elementwiseFlopsPerElement says per output element; ops that only move or
// reshape data count zero; com.microsoft ops count what contribFlops (ops/contrib/contrib_flops.h) says, the
// profile's own figure. Unknown dims give zero.
#include <cstdint>

#include "ir/model.h"
#include "shapes/shape_inference.h"

namespace onyx::profile {

int64_t estimateFlops(const Node& node, const ShapeInference& shapes);

}  // namespace onyx::profile
