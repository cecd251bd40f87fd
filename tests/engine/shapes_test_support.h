#pragma once
// Helpers for the shape inference tests: small models in ONNX's textual syntax and readable results.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "onnx/onnx_io.h"
#include "shapes/shape_inference.h"

namespace onyx::testing {

inline std::unique_ptr<Model> parseOrFail(const std::string& text) {
  auto model = parseModelText(text);
  if (!model) {
    ADD_FAILURE() << "cannot parse test model: " << model.error().toString();
    return nullptr;
  }
  return std::move(*model);
}

// The value named `name` in the main graph (or any body), as inferred.
inline const InferredValue* inferredNamed(const ShapeInference& result, const std::string& name) {
  for (const auto& [value, inferred] : result.values) {
    if (value->name() == name) return &inferred;
  }
  return nullptr;
}

// "[N, 8, 112]", "?" for an unknown rank, "missing" when the value was not inferred.
inline std::string shapeNamed(const ShapeInference& result, const std::string& name) {
  const InferredValue* inferred = inferredNamed(result, name);
  if (!inferred) return "missing";
  const auto& shape = inferred->type.shape();
  return shape ? shapeToString(*shape) : "?";
}

// The dim's value with the symbols bound, or -1 when it does not evaluate.
inline int64_t evaluateDim(const Dim& dim, const SymBindings& bindings) {
  if (dim.isUnknown()) return -1;
  return dim.expr().evaluate(bindings).value_or(-1);
}

inline std::string errorsOf(const ShapeInference& result) {
  std::string text;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    if (diagnostic.severity == Diagnostic::Severity::Error) text += diagnostic.message + " [" + diagnostic.where + "]\n";
  }
  return text;
}

}  // namespace onyx::testing
