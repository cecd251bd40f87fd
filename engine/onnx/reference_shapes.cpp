#include "onnx/reference_shapes.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

namespace onyx {

namespace {

bool resolvedType(const onnx::TypeProto& type, const std::set<std::string>& inputSymbols) {
  if (!type.has_tensor_type()) return type.value_case() != onnx::TypeProto::VALUE_NOT_SET;
  const auto& tensor = type.tensor_type();
  if (!tensor.has_shape()) return false;
  for (const auto& dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) continue;
    if (dim.has_dim_param() && inputSymbols.count(dim.dim_param())) continue;
    return false;
  }
  return true;
}

void countGraph(const onnx::GraphProto& graph, const std::set<std::string>& inputSymbols, bool topLevel,
                ReferenceShapeResult& result) {
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  for (const auto& info : graph.value_info()) types[info.name()] = &info.type();
  for (const auto& info : graph.output()) types[info.name()] = &info.type();
  std::set<std::string> initializers;
  for (const auto& tensor : graph.initializer()) initializers.insert(tensor.name());
  auto count = [&](const onnx::TypeProto* type) {
    ++result.values;
    if (!type || !resolvedType(*type, inputSymbols)) ++result.unresolved;
  };
  if (topLevel) {
    for (const auto& input : graph.input()) {
      if (!initializers.count(input.name())) count(&input.type());
    }
  }
  for (const auto& node : graph.node()) {
    for (const auto& output : node.output()) {
      if (output.empty()) continue;
      auto found = types.find(output);
      count(found == types.end() ? nullptr : found->second);
    }
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_g()) countGraph(attribute.g(), inputSymbols, false, result);
      for (const auto& body : attribute.graphs()) countGraph(body, inputSymbols, false, result);
    }
  }
}

}  // namespace

Expected<ReferenceShapeResult> referenceShapeInference(const std::filesystem::path& modelPath, int repetitions) {
  std::ifstream file(modelPath, std::ios::binary);
  if (!file) return makeError("cannot open the model file", modelPath.string());
  std::stringstream bytes;
  bytes << file.rdbuf();
  onnx::ModelProto original;
  if (!original.ParseFromString(bytes.str())) return makeError("not a valid ONNX model (protobuf parse failed)", modelPath.string());

  ReferenceShapeResult result;
  onnx::ModelProto inferred;
  for (int i = 0; i < std::max(repetitions, 1); ++i) {
    onnx::ModelProto copy = original;
    auto start = std::chrono::steady_clock::now();
    try {
      onnx::shape_inference::InferShapes(copy);
    } catch (const std::exception& error) {
      result.warning = error.what();
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i == 0 || seconds < result.seconds) result.seconds = seconds;
    if (i == 0) inferred = std::move(copy);
  }
  std::set<std::string> inputSymbols;
  for (const auto& input : inferred.graph().input()) {
    if (!input.type().has_tensor_type()) continue;
    for (const auto& dim : input.type().tensor_type().shape().dim()) {
      if (dim.has_dim_param()) inputSymbols.insert(dim.dim_param());
    }
  }
  countGraph(inferred.graph(), inputSymbols, true, result);
  return result;
}

}  // namespace onyx
