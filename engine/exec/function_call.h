#pragma once
// Nodes that call a model-local function. The generic path runs the function's body graph through the
// executor (as If/Loop run their bodies); a body that is a purely element-wise program runs as one fused
// kernel when its inputs are float32 (exec/fused_elementwise.h).
#include <memory>

#include "exec/backend.h"
#include "ir/model.h"

namespace onyx::exec {

// Errors when the executor cannot run the body (it reads attributes of the call, which bodies planned once
// per function cannot see).
Expected<std::unique_ptr<PreparedNode>> prepareFunctionCall(const Node& node, const Function& function);

}  // namespace onyx::exec
