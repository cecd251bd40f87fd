#pragma once
// What inference found inside a model-local function's body, kept after the calls (passes read it there).
// A body is inferred once per call with that call's inputs; the facts kept are those every call agrees on,
// so a rewrite that relies on them is valid for every caller.
#include <string>
#include <unordered_map>

#include "shapes/shape_inference.h"

namespace onyx {

// Merges one call's body table into `kept`: a value seen for the first time is copied; a value already kept
// keeps each dim, small value and constant that this call agrees with, and the rest becomes unknown with
// `functionName` named as the reason.
void keepFunctionBodyValues(std::unordered_map<const Value*, InferredValue>& kept,
                            const std::unordered_map<const Value*, InferredValue>& body,
                            const std::string& functionName);

}  // namespace onyx
