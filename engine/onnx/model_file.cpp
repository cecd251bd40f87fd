// Reading and writing .onnx files: the file never sits in memory as one string next to its parsed form, and
// outputs appear only complete (temporary file + rename).
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <set>
#include <system_error>

#include "ir/nesting.h"
#include "onnx/atomic_file.h"
#include "onnx/onnx_io.h"
#include "onnx/proto_convert.h"
#include "util/limits.h"
#include "util/mapped_file.h"

namespace onyx {
namespace onnx_io {
namespace {

namespace fs = std::filesystem;

Error parseFailure(const std::string& what, size_t size) {
  return makeError(
      "cannot parse the " + what + ": the file is truncated, damaged or not ONNX (protobuf rejected it)",
      std::to_string(size) + " bytes");
}

Expected<void> parseStream(google::protobuf::io::ZeroCopyInputStream& stream, size_t size,
                           google::protobuf::Message& message, const std::string& what,
                           InlineSpans* spans = nullptr) {
  if (size == 0) return makeError("the file is empty; an ONNX " + what + " is a serialized protobuf message");
  if (size > size_t(INT_MAX))
    return makeError("the file is " + std::to_string(size) +
                     " bytes; protobuf cannot read one message over 2 GB: keep the weights in external data "
                     "(onyx save --external-data)");
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  auto* model = dynamic_cast<onnx::ModelProto*>(&message);
  bool parsed = model ? parseModelStream(coded, size, *model, spans)
                      : message.ParsePartialFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  if (!parsed) return parseFailure(what, size);
  return {};
}

// Protobuf gives no reason when it rejects a file; nesting deeper than its recursion limit is one we can
// name (issue #25: 300 nested Ifs were "truncated, damaged or not ONNX").
Error whyUnparsable(std::span<const std::byte> bytes, Error parseError) {
  auto depth = scanBodyNesting(bytes);
  if (depth && *depth > resourceLimits().maxNestingDepth) return nestingTooDeep(*depth, "");
  return parseError;
}

fs::path absoluteFolder(const fs::path& file) {
  std::error_code error;
  fs::path absolute = fs::absolute(file, error);
  if (error) absolute = file;
  return absolute.parent_path();
}

// The real paths of every external data file the model reads, to protect them from being overwritten.
void collectExternalFiles(const Graph& graph, std::set<fs::path>& files) {
  auto add = [&files](const Tensor& tensor) {
    if (!tensor.isExternal()) return;
    std::error_code error;
    fs::path real = fs::weakly_canonical(tensor.externalData()->resolvedPath, error);
    files.insert(error ? tensor.externalData()->resolvedPath : real);
  };
  for (Value* value : graph.initializers()) add(*value->initializer());
  for (Node* node : graph.nodes())
    for (const Attribute& attribute : node->attributes()) {
      if (const Tensor* tensor = attribute.getTensor()) add(*tensor);
      for (Graph* body : attribute.subgraphs()) collectExternalFiles(*body, files);
    }
}

bool hasExternalTensors(const Model& model) {
  std::set<fs::path> files;
  collectExternalFiles(model.graph(), files);
  for (const auto& function : model.functions) collectExternalFiles(*function->body, files);
  return !files.empty();
}

bool sameFolder(const fs::path& a, const fs::path& b) {
  std::error_code error;
  bool same = fs::equivalent(a.empty() ? "." : a, b.empty() ? "." : b, error);
  return !error && same;
}

// Appends tensors to the data file at aligned offsets.
class DataFileWriter {
 public:
  DataFileWriter(AtomicFile& file, std::string location) : file_(file), location_(std::move(location)) {}

  Expected<TensorPlacement> append(const Tensor& tensor) {
    auto bytes = tensor.bytes();
    if (!bytes) return bytes.error();
    size_t alignment = bytes->size() >= 65536 ? 4096 : 64;
    size_t offset = (file_.written() + alignment - 1) / alignment * alignment;
    if (auto ok = file_.writeZeros(offset - file_.written()); !ok) return ok.error();
    if (auto ok = file_.write(bytes->data(), bytes->size()); !ok) return ok.error();
    ++count_;
    dataBytes_ += bytes->size();
    return TensorPlacement{TensorPlacement::Kind::External, location_, int64_t(offset)};
  }
  size_t count() const { return count_; }
  size_t dataBytes() const { return dataBytes_; }

 private:
  AtomicFile& file_;
  std::string location_;
  size_t count_ = 0;
  size_t dataBytes_ = 0;
};

Expected<void> writeMessage(const google::protobuf::Message& message, AtomicFile& file) {
  google::protobuf::io::FileOutputStream stream(file.fd(), 1 << 20);
  if (!message.SerializeToZeroCopyStream(&stream) || !stream.Flush())
    return makeError(std::string("cannot write the model: ") + std::strerror(stream.GetErrno()));
  return {};
}

Error tooLarge(size_t size) {
  return makeError(
      "the model is " + std::to_string(size) +
      " bytes with its weights inline, over protobuf's 2 GB limit: save the weights as external data "
      "(onyx save --external-data NAME)");
}

}  // namespace

Expected<void> parseProtoFile(const fs::path& path, google::protobuf::Message& message,
                              const std::string& what, InlineSpans* spans) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError(std::string("cannot open the file: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return makeError("not a regular file");
  }
  google::protobuf::io::FileInputStream stream(fd, 1 << 16);
  stream.SetCloseOnDelete(true);
  return parseStream(stream, size_t(info.st_size), message, what, spans);
}

}  // namespace onnx_io

Expected<std::unique_ptr<Model>> loadModel(const std::filesystem::path& path, const LoadOptions& options) {
  onnx::ModelProto proto;
  // Mapped weights: the large inline initializers stay in the file's pages, read when a kernel touches them.
  std::shared_ptr<const MappedFile> mapped;
  onnx_io::InlineSpans spans;
  if (options.mapWeights)
    if (auto file = MappedFile::open(path)) mapped = *file;
  if (auto parsed = onnx_io::parseProtoFile(path, proto, "model", mapped ? &spans : nullptr); !parsed) {
    auto file = mapped ? Expected<std::shared_ptr<const MappedFile>>(mapped) : MappedFile::open(path);
    return file ? onnx_io::whyUnparsable((*file)->bytes(), parsed.error()) : parsed.error();
  }
  // The mapping is of the file as it was opened for parsing: one size, checked against every span.
  if (mapped)
    for (const auto& [tensor, span] : spans.spans)
      if (span.first + span.second > mapped->bytes().size())
        return makeError("the file changed while it was read; open it again", path.string());
  onnx_io::ExternalDataRoot root{onnx_io::absoluteFolder(path), mapped, mapped ? &spans : nullptr};
  auto model = onnx_io::modelFromProto(proto, root);
  if (model)
    if (auto typed = onnx_io::checkAttributeTypes(**model); !typed) return typed.error();
  if (model) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(path, error);
    (*model)->path = error ? path : absolute;
  }
  return model;
}

Expected<std::unique_ptr<Model>> loadModel(const std::filesystem::path& path) {
  return loadModel(path, LoadOptions{});
}

Expected<std::unique_ptr<Model>> parseModel(std::string_view bytes, const std::filesystem::path& baseDir,
                                            std::string_view displayName) {
  auto named = [displayName](Error error) {
    if (!displayName.empty()) error.message = std::string(displayName) + ": " + error.message;
    return error;
  };
  onnx::ModelProto proto;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), int(std::min<size_t>(bytes.size(), INT_MAX)));
  if (auto parsed = onnx_io::parseStream(stream, bytes.size(), proto, "model"); !parsed)
    return named(onnx_io::whyUnparsable(std::as_bytes(std::span(bytes.data(), bytes.size())), parsed.error()));
  std::filesystem::path folder;
  if (!baseDir.empty()) {
    std::error_code error;
    folder = std::filesystem::absolute(baseDir, error);
    if (error) folder = baseDir;
  }
  auto model = onnx_io::modelFromProto(proto, {folder});
  if (!model) return named(model.error());
  if (auto typed = onnx_io::checkAttributeTypes(**model); !typed) return named(typed.error());
  return model;
}

Expected<std::string> serializeModel(const Model& model, const SaveOptions& options) {
  if (options.weights == SaveOptions::Weights::External)
    return makeError("external data needs a file to write to: use saveModel");
  onnx_io::TensorPlacement placement;
  placement.kind = options.weights == SaveOptions::Weights::Inline ? onnx_io::TensorPlacement::Kind::Inline
                                                                   : onnx_io::TensorPlacement::Kind::AsLoaded;
  onnx::ModelProto proto;
  onnx_io::PlacementPolicy policy = [&placement](const Tensor&) -> Expected<onnx_io::TensorPlacement> {
    return placement;
  };
  if (auto ok = onnx_io::modelToProto(model, policy, proto); !ok) return ok.error();
  size_t size = proto.ByteSizeLong();
  if (size > size_t(INT_MAX)) return onnx_io::tooLarge(size);
  return proto.SerializeAsString();
}

std::vector<std::filesystem::path> externalDataFiles(const Model& model) {
  std::set<std::filesystem::path> files;
  onnx_io::collectExternalFiles(model.graph(), files);
  for (const auto& function : model.functions) onnx_io::collectExternalFiles(*function->body, files);
  return {files.begin(), files.end()};
}

Expected<SaveReport> saveModel(const Model& model, const std::filesystem::path& out,
                               const SaveOptions& options) {
  namespace fs = std::filesystem;
  using onnx_io::TensorPlacement;
  fs::path outFolder = onnx_io::absoluteFolder(out);
  fs::path sourceFolder = model.path.empty() ? fs::path() : model.path.parent_path();

  // Keep leaves external tensors where they are, unless the output lives elsewhere: then their bytes must
  // follow it into a new data file beside it.
  bool externalFile = options.weights == SaveOptions::Weights::External;
  bool relocateExternal = options.weights == SaveOptions::Weights::Keep &&
                          onnx_io::hasExternalTensors(model) && !onnx_io::sameFolder(outFolder, sourceFolder);
  SaveReport report;
  std::optional<onnx_io::AtomicFile> dataFile;
  std::string location;
  if (externalFile || relocateExternal) {
    location =
        options.externalDataName.empty() ? out.filename().string() + ".data" : options.externalDataName;
    fs::path normal = fs::path(location).lexically_normal();
    if (fs::path(location).is_absolute() || normal.empty() || *normal.begin() == ".." ||
        normal.has_parent_path())
      return makeError("the external data name '" + location +
                       "' must be a plain file name: the data file is written next to the model");
    report.externalDataPath = outFolder / location;
    std::set<fs::path> sources;
    onnx_io::collectExternalFiles(model.graph(), sources);
    for (const auto& function : model.functions) onnx_io::collectExternalFiles(*function->body, sources);
    std::error_code error;
    fs::path realTarget = fs::weakly_canonical(report.externalDataPath, error);
    fs::path realOut = fs::weakly_canonical(outFolder / out.filename(), error);
    if (realTarget == realOut)
      return makeError("the external data name '" + location +
                       "' is the model file's own name: the weights and the model cannot share one file; choose "
                       "another name (e.g. '" + out.filename().string() + ".data')");
    if (!model.path.empty() && realTarget == fs::weakly_canonical(model.path, error))
      return makeError("the external data file " + report.externalDataPath.string() + " is the input model " +
                       model.path.string() + ", which would be overwritten; choose another external data name");
    // Saving over the input itself replaces its data file too (atomically); any other output must not.
    bool savingOverInput = !model.path.empty() && fs::exists(out) && fs::equivalent(out, model.path, error);
    if (sources.count(realTarget) && !savingOverInput)
      return makeError("the data file " + report.externalDataPath.string() + " holds the weights of " +
                       model.path.string() +
                       ", which would be overwritten; choose another external data name");
    auto created = onnx_io::AtomicFile::create(report.externalDataPath);
    if (!created) return created.error();
    dataFile.emplace(std::move(*created));
  }
  std::optional<onnx_io::DataFileWriter> data;
  if (dataFile) data.emplace(*dataFile, location);

  onnx_io::PlacementPolicy policy = [&](const Tensor& tensor) -> Expected<TensorPlacement> {
    switch (options.weights) {
      case SaveOptions::Weights::Inline:
        return TensorPlacement{TensorPlacement::Kind::Inline, {}, 0};
      case SaveOptions::Weights::External:
        if (tensor.dtype() != DataType::String && tensor.byteSize() >= options.sizeThreshold)
          return data->append(tensor);
        return TensorPlacement{
            tensor.isExternal() ? TensorPlacement::Kind::Inline : TensorPlacement::Kind::AsLoaded, {}, 0};
      case SaveOptions::Weights::Keep:
        if (relocateExternal && tensor.isExternal()) return data->append(tensor);
        return TensorPlacement{};
    }
    return TensorPlacement{};
  };
  onnx::ModelProto proto;
  if (auto ok = onnx_io::modelToProto(model, policy, proto); !ok) return ok.error();
  size_t size = proto.ByteSizeLong();
  if (size > size_t(INT_MAX)) return onnx_io::tooLarge(size);
  auto modelFile = onnx_io::AtomicFile::create(out);
  if (!modelFile) return modelFile.error();
  if (auto ok = onnx_io::writeMessage(proto, *modelFile); !ok) return ok.error();
  if (auto ok = modelFile->finish(); !ok) return ok.error();
  report.modelBytes = size;
  if (dataFile) {
    if (auto ok = dataFile->finish(); !ok) return ok.error();
    report.externalTensors = data->count();
    report.externalBytes = data->dataBytes();
    // The data file first: the model that names it appears only once its weights are in place. A data file
    // no tensor went into is not written at all.
    if (report.externalTensors == 0)
      report.externalDataPath.clear();
    else if (auto ok = dataFile->rename(); !ok)
      return ok.error();
  }
  if (auto ok = modelFile->rename(); !ok) return ok.error();
  return report;
}

}  // namespace onyx
