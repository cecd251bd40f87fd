#pragma once
#include <optional>
#include <span>
// Conversions between onnx.proto messages and the IR, shared by the files of engine/onnx/. Nothing outside
// engine/onnx/ includes this header: protobuf types stay behind the onnx_io.h boundary.
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "ir/model.h"
#include "onnx/onnx_io.h"
#include "util/expected.h"
#include "util/mapped_file.h"

namespace onyx::onnx_io {

// Where external data may be read from: the folder of the model file, checked so that a location cannot
// reach outside it.
// Main-graph raw_data of at least `minBytes` that parseModelStream left in the file instead of reading it:
// where each such initializer's bytes are, for a model file that loadModel maps (LoadOptions::mapWeights).
struct InlineSpans {
  size_t minBytes = size_t(1) << 20;
  std::map<const onnx::TensorProto*, std::pair<size_t, size_t>> spans;  // offset and size in the file
};

struct ExternalDataRoot {
  std::filesystem::path folder;  // empty: the model came from memory, external data is an error
  // The mapped model file and the initializers whose raw_data stayed in it (InlineSpans), or none.
  std::shared_ptr<const MappedFile> modelFile = {};
  const InlineSpans* inlineSpans = nullptr;
};

// Converts a TensorProto, moving raw_data out of it (no copy). `what` names the tensor in errors:
// "initializer 'conv1.weight'".
Expected<Tensor> tensorFromProto(onnx::TensorProto& proto, const ExternalDataRoot& root,
                                 const std::string& what);

// How a tensor is written: as loaded, with its bytes inline, or into a data file at the given place.
struct TensorPlacement {
  enum class Kind { AsLoaded, Inline, External } kind = Kind::AsLoaded;
  std::string location;
  int64_t offset = 0;
};
Expected<void> tensorToProto(const Tensor& tensor, const TensorPlacement& placement,
                             onnx::TensorProto& proto);
// Writes the field presence the tensor was loaded with (again after a caller set its name).
void applyTensorPresence(const Tensor& tensor, onnx::TensorProto& proto);

Type typeFromProto(const onnx::TypeProto& proto);
void typeToProto(const Type& type, onnx::TypeProto& proto);

// Decides, for each tensor of the model as it is written, where its bytes go.
using PlacementPolicy = std::function<Expected<TensorPlacement>(const Tensor&)>;

// Proto -> IR. Consumes `proto` (weights are moved out). `displayName` names the input in errors.
Expected<std::unique_ptr<Model>> modelFromProto(onnx::ModelProto& proto, const ExternalDataRoot& root);
// Each node's attributes have the types its operator's ONNX schema declares (attribute_types.cpp); an error
// naming the node, the attribute, the type found and the type expected otherwise.
Expected<void> checkAttributeTypes(const Model& model);
// IR -> proto.
Expected<void> modelToProto(const Model& model, const PlacementPolicy& placement, onnx::ModelProto& proto);
// One graph (a body, a function's body) on its own; names from enclosing scopes stay plain names.
Expected<void> graphToProto(const Graph& graph, const PlacementPolicy& placement, onnx::GraphProto& proto);

// Serialized form of a message's unknown fields (fields newer than onnx 1.12), and their restoration.
std::string serializeUnknownFields(const google::protobuf::Message& message);
void restoreFields(const std::string& serialized, google::protobuf::Message& message);

// Which singular fields of a parsed message are present (FieldPresence), and the writing side: after the
// writer filled `message`, a field holding its default value is made present or absent as recorded (a field
// holding another value stays: it was edited).
FieldPresence presenceOf(const google::protobuf::Message& message);
void applyPresence(FieldPresence presence, google::protobuf::Message& message);

// Parses a ModelProto of `size` bytes as protobuf would, reading the main graph's raw_data into strings of
// exactly their size (model_stream.cpp).
// With `spans`, raw_data of spans->minBytes or more is skipped and its place recorded instead.
bool parseModelStream(google::protobuf::io::CodedInputStream& in, size_t size, onnx::ModelProto& model,
                      InlineSpans* spans = nullptr);
// The deepest If/Loop/Scan body level of a serialized ModelProto (the main graph is 0, a function body 1), read
// along the fields that lead to bodies only; nullopt when those are malformed (nesting_scan.cpp).
std::optional<int64_t> scanBodyNesting(std::span<const std::byte> bytes);

// Parses a whole file into `message` from a buffered stream (the file is never held as one string) with
// protobuf's size limit raised to its 2 GB maximum. `spans`: see parseModelStream (a ModelProto only).
Expected<void> parseProtoFile(const std::filesystem::path& path, google::protobuf::Message& message,
                              const std::string& what, InlineSpans* spans = nullptr);

}  // namespace onyx::onnx_io
