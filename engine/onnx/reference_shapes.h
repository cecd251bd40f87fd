#pragma once
// libonnx's own shape inference (onnx::shape_inference::InferShapes, onnx 1.12) on a model file, as the
// reference `onyx shapes --compare-onnx` and the shapes benchmark measure Onyx against. Counts use the same
// rule as Onyx's report: a value is unresolved when its rank is unknown or a dim has neither a size nor one of
// the graph inputs' dim_params (onnx invents `unk__N` names for dims it cannot express).
#include <filesystem>

#include "util/expected.h"

namespace onyx {

struct ReferenceShapeResult {
  size_t values = 0;      // graph inputs (not initializers) and node outputs of the main graph and bodies
  size_t unresolved = 0;
  double seconds = 0;     // fastest InferShapes call, parsing excluded
  std::string warning;    // what InferShapes reported, if it threw (the counts are then of a partial result)
};

// Parses the file once and runs InferShapes `repetitions` times on fresh copies.
Expected<ReferenceShapeResult> referenceShapeInference(const std::filesystem::path& modelPath, int repetitions = 1);

}  // namespace onyx
