#pragma once
// How deep a model nests: If/Loop/Scan bodies inside bodies, and calls of model-local functions (a call runs
// the function's body one level down). Loading, shape inference, the executor, the passes and the graph
// views all walk that nesting recursively, so a model-local function that calls itself, directly or through
// others, would recurse until the stack overflows, and a deep enough nesting would too. checkNesting() finds
// both first, naming the call cycle or the node past the limit (ResourceLimits::maxNestingDepth).
#include "ir/model.h"
#include "util/expected.h"

namespace onyx {

Expected<void> checkNesting(const Model& model);

// The error for bodies nested `depth` deep, over the limit: also what the loader says when protobuf rejects
// a file for nesting deeper than it parses (onnx/model_file.cpp).
Error nestingTooDeep(int64_t depth, std::string where);

}  // namespace onyx
