// libFuzzer entry for shape inference: any bytes that load as a model go through symbolic shape inference,
// the shape report and its text and JSON forms; each may end in diagnostics or an error, never in a crash.
// A loaded model's bindings (its symbols fixed to small sizes) go through inference a second time, as
// `onyx shapes --bind` does.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "onnx/onnx_io.h"
#include "shapes/shape_inference.h"
#include "shapes/shape_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto model = onyx::parseModel(bytes, {}, "fuzz input");
  if (!model) return 0;
  onyx::ShapeInference inference = onyx::inferShapes(**model);
  onyx::ShapeReport report = onyx::buildShapeReport(**model, inference);
  (void)onyx::reportText(report);
  (void)onyx::reportJson(report, inference);

  onyx::ShapeInferenceOptions bound;
  for (const onyx::Value* input : (*model)->graph().inputs()) {
    if (!input->type().isTensor() || !input->type().shape()) continue;
    for (const onyx::Dim& dim : *input->type().shape())
      if (dim.isSymbolic())
        for (const std::string& symbol : dim.expr().symbols()) bound.bindings.emplace(symbol, 2);
  }
  if (bound.bindings.empty()) return 0;
  onyx::ShapeInference boundInference = onyx::inferShapes(**model, bound);
  (void)onyx::buildShapeReport(**model, boundInference);
  return 0;
}
