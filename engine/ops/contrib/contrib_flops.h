#pragma once
// FLOPs of a com.microsoft node, from its attributes and its inputs' dims: one formula for the profile's
// per-run figure (every contrib kernel's KernelDef::flops) and the static estimate (profile/static_flops.h).
// Multiply-adds count two, as for the standard ops. The attention ops count the Q/K/V projection (Attention),
// the QK^T and AV products over the whole attended length (past + new tokens) and 4 per score for the
// softmax; MatMulNBits counts 2 * M * K * N whatever its bits (its weights are decoded, not multiplied
// twice); the fused norms and activations count their parts (LayerNormalization 4 per element, a skip or
// bias add 1, Gelu 8, Sigmoid 4).
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/model.h"

namespace onyx::exec::contrib {

using InputDims = std::vector<std::optional<std::vector<int64_t>>>;  // nullopt: absent or not static

// nullopt for an op that is not com.microsoft or has no formula here (QLinear*, GatherBlockQuantized: the
// caller's element-wise default applies); 0 when a dim the formula needs is unknown.
std::optional<int64_t> contribFlops(const Node& node, const InputDims& inputs);

}  // namespace onyx::exec::contrib
