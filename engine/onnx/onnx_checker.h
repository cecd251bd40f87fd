#pragma once
// The onnx library's own checker (libonnx 1.12: IR <= 8, opset <= 17) over a model of ours, so passes and
// tests can show that what they save is a model other ONNX tools accept.
#include "ir/model.h"
#include "util/expected.h"

namespace onyx {

// Serializes the model and runs onnx::checker::check_model on it; the checker's message on failure.
Expected<void> checkWithOnnx(const Model& model);

}  // namespace onyx
