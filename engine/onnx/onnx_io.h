#pragma once
// The ONNX file boundary: ModelProto bytes <-> the engine IR. Protobuf types never leave engine/onnx/; the
// rest of the engine sees only Model, Graph and Tensor.
//
// Loading is lossless: fields the IR does not model (and fields newer than onnx 1.12) are kept as serialized
// bytes on the IR object they belong to and written back on save, so load + save preserves a model.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "ir/type.h"
#include "util/expected.h"

namespace onyx {

// Reads an .onnx file. Inline weights move into the IR without a copy; external weights are checked
// (inside the model's folder, present, long enough) and mapped lazily on first use.
Expected<std::unique_ptr<Model>> loadModel(const std::filesystem::path& path);
struct LoadOptions {
  // Inline initializers of 1 MiB or more stay in a read-only map of the file instead of being copied: the
  // pages a run never reads (most rows of an embedding table) never take memory. The file must then stay
  // as it is while the model is open (a program that rewrites it in place changes those weights, or ends
  // this process with SIGBUS where it shrank), so `onyx run` maps and the GUI, whose files get re-exported
  // while open, copies.
  bool mapWeights = false;
};
Expected<std::unique_ptr<Model>> loadModel(const std::filesystem::path& path, const LoadOptions& options);
// Same, from bytes in memory. External data resolves against `baseDir` (empty: external data is an error);
// `displayName` (if not empty) starts the message of every error: "pasted model: the file is empty...".
Expected<std::unique_ptr<Model>> parseModel(std::string_view bytes, const std::filesystem::path& baseDir,
                                            std::string_view displayName);

struct SaveOptions {
  enum class Weights {
    Keep,      // as loaded: inline tensors inline, external ones keep their location
    Inline,    // every tensor inside the .onnx (external data is read back in)
    External,  // tensors of at least sizeThreshold bytes go to one data file next to the output
  };
  Weights weights = Weights::Keep;
  std::string externalDataName;  // External: the data file's name; empty: "<output file name>.data"
  size_t sizeThreshold = 1024;
};

// The model as .onnx bytes (Keep or Inline; External needs saveModel, which writes the data file).
Expected<std::string> serializeModel(const Model& model, const SaveOptions& options = {});

// What saveModel wrote, for the CLI's one-line summary.
struct SaveReport {
  size_t modelBytes = 0;
  size_t externalTensors = 0;
  size_t externalBytes = 0;                // bytes of tensor data in the data file
  std::filesystem::path externalDataPath;  // empty when no data file was written
};

// Writes the model (and its data file) through temporary files and renames: a failure leaves any existing
// output intact, and the files the model was loaded from are never modified.
// The real paths of every external data file the model's tensors read (main graph, bodies, functions).
std::vector<std::filesystem::path> externalDataFiles(const Model& model);

Expected<SaveReport> saveModel(const Model& model, const std::filesystem::path& out,
                               const SaveOptions& options = {});

// ONNX's textual syntax (onnx/defs/parser.h): `<ir_version: 8, opset_import: ["" : 17]> g (float[N] x) =>
// ...`.
Expected<std::unique_ptr<Model>> parseModelText(std::string_view text);
std::string printModelText(const Model& model);
// One graph in the same syntax (`name (inputs) => (outputs) { ... }`): an If branch, a Loop body, a
// function's body, for showing the part of a model the user looks at.
std::string printGraphText(const Graph& graph);

// test_data_set_N/{input,output}_K.pb: a TensorProto, or a SequenceProto/OptionalProto/MapProto when the
// model's input or output has that type.
struct TestValue {
  enum class Kind { Tensor, Sequence, Optional, Map };
  Kind kind = Kind::Tensor;
  std::string name;
  onyx::Tensor tensor;              // Kind::Tensor
  std::vector<TestValue> elements;  // Sequence: the items; Optional: none or one; Map: the values
  onyx::Tensor keys;                // Map: int64 or string keys, one per element
  bool hasValue() const { return kind != Kind::Optional || !elements.empty(); }
};

Expected<Tensor> loadTensorFile(const std::filesystem::path& path);
// `declared` picks the message type (sequence, optional, map); a tensor when it is a tensor type or unknown.
Expected<TestValue> loadTestValueFile(const std::filesystem::path& path, const Type& declared = {});
Expected<void> saveTensorFile(const Tensor& tensor, const std::filesystem::path& path);

}  // namespace onyx
