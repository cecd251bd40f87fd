#include "onnx/onnx_checker.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "onnx/onnx_io.h"

namespace onyx {

Expected<void> checkWithOnnx(const Model& model) {
  auto bytes = serializeModel(model);
  if (!bytes) return bytes.error();
  onnx::ModelProto proto;
  if (!proto.ParseFromString(*bytes)) return makeError("the serialized model does not parse back");
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception& error) {
    return makeError(std::string("the onnx checker rejects the model: ") + error.what());
  }
  return {};
}

}  // namespace onyx
