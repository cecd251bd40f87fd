// Cases are `NAME | MODEL | COMMAND | EXPECTED ERROR LINE`; this file reads only NAME and MODEL (the runner,
// malformed/check_case.sh, reads the rest). MODEL is `-` (the case needs no model of its own) or ONNX text
// followed by edits, each after ` @@ `, that the text syntax cannot say:
//   nodeK.op_type=S  nodeK.domain=S                 the main graph's K-th node
//   initK.raw=HEX  initK.dims=D,D  initK.data_type=N  the K-th initializer (raw= drops the typed data)
//   inputK.elem_type=N                              the K-th graph input's tensor element type
//   pbK=TENSOR                                       writes NAME.inputs/input_K.pb, a TensorProto in the text
//   pbK.raw=HEX  pbK.dims=D,D  pbK.data_type=N  pbK.name=S   syntax (`float[2] {1, 2}`), then edits it
//   pbK.bytes=HEX                                    writes NAME.inputs/input_K.pb as these bytes
#include "corpus_writer.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace onyx::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + separator.size())
    parts.push_back(text.substr(start, at - start));
  parts.push_back(text.substr(start));
  return parts;
}

std::string trimmed(const std::string& text) {
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string fromHex(const std::string& hex) {
  if (hex.size() % 2) throw std::runtime_error("odd number of hex digits in '" + hex + "'");
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) bytes += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

void setDims(onnx::TensorProto& tensor, const std::string& dims) {
  tensor.clear_dims();
  for (const std::string& dim : split(dims, ","))
    if (!dim.empty()) tensor.add_dims(std::stoll(dim));
}

// Applies `raw=`, `dims=`, `data_type=` or `name=` to a tensor; false when `field` is none of them.
bool editTensor(onnx::TensorProto& tensor, const std::string& field, const std::string& value) {
  if (field == "raw") {
    tensor.clear_float_data();
    tensor.clear_int32_data();
    tensor.clear_int64_data();
    tensor.clear_double_data();
    tensor.set_raw_data(fromHex(value));
  } else if (field == "dims") {
    setDims(tensor, value);
  } else if (field == "data_type") {
    tensor.set_data_type(std::stoi(value));
  } else if (field == "name") {
    tensor.set_name(value);
  } else {
    return false;
  }
  return true;
}

template <typename Message>
Message parsed(const std::string& text) {
  Message message;
  onnx::OnnxParser parser(text.c_str());
  auto status = parser.Parse(message);
  if (!status.IsOK()) throw std::runtime_error("cannot parse '" + text + "': " + status.ErrorMessage());
  return message;
}

template <typename Items>
auto& at(Items& items, int index, const std::string& what) {
  if (index < 0 || index >= items.size()) throw std::runtime_error("no " + what + " " + std::to_string(index));
  return *items.Mutable(index);
}

struct CaseFiles {
  onnx::ModelProto model;
  std::map<int, onnx::TensorProto> inputTensors;
  std::map<int, std::string> inputBytes;
};

// `target` is e.g. "node0", "init1", "pb0"; `field` what follows its dot (empty for `pbK=`).
void applyEdit(CaseFiles& files, const std::string& edit) {
  size_t equals = edit.find('=');
  if (equals == std::string::npos) throw std::runtime_error("edit '" + edit + "' has no '='");
  std::string key = edit.substr(0, equals), value = edit.substr(equals + 1);
  size_t dot = key.find('.');
  std::string target = key.substr(0, dot), field = dot == std::string::npos ? "" : key.substr(dot + 1);
  size_t digits = target.find_first_of("0123456789");
  if (digits == std::string::npos) throw std::runtime_error("edit '" + edit + "' names no index");
  std::string kind = target.substr(0, digits);
  int index = std::stoi(target.substr(digits));
  onnx::GraphProto& graph = *files.model.mutable_graph();
  if (kind == "node" && field == "op_type") {
    at(*graph.mutable_node(), index, "node").set_op_type(value);
  } else if (kind == "node" && field == "domain") {
    at(*graph.mutable_node(), index, "node").set_domain(value);
  } else if (kind == "init" && editTensor(at(*graph.mutable_initializer(), index, "initializer"), field, value)) {
  } else if (kind == "input" && field == "elem_type") {
    at(*graph.mutable_input(), index, "input").mutable_type()->mutable_tensor_type()->set_elem_type(std::stoi(value));
  } else if (kind == "pb" && field.empty()) {
    files.inputTensors[index] = parsed<onnx::TensorProto>(value);
  } else if (kind == "pb" && field == "bytes") {
    files.inputBytes[index] = fromHex(value);
  } else if (kind == "pb" && files.inputTensors.count(index) && editTensor(files.inputTensors[index], field, value)) {
  } else {
    throw std::runtime_error("unknown edit '" + edit + "'");
  }
}

void writeFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

void writeCase(const std::string& name, const std::string& modelField, const fs::path& outDir) {
  std::vector<std::string> parts = split(modelField, " @@ ");
  CaseFiles files;
  files.model = parsed<onnx::ModelProto>(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) applyEdit(files, trimmed(parts[i]));
  writeFile(outDir / (name + ".onnx"), files.model.SerializeAsString());
  if (files.inputTensors.empty() && files.inputBytes.empty()) return;
  fs::path inputs = outDir / (name + ".inputs");
  fs::create_directories(inputs);
  for (auto& [index, tensor] : files.inputTensors)
    writeFile(inputs / ("input_" + std::to_string(index) + ".pb"), tensor.SerializeAsString());
  for (auto& [index, bytes] : files.inputBytes)
    writeFile(inputs / ("input_" + std::to_string(index) + ".pb"), bytes);
}

}  // namespace

int writeCorpus(const std::string& manifestPath, const std::string& outDir) {
  std::ifstream manifest(manifestPath);
  if (!manifest) {
    std::fprintf(stderr, "error: %s: cannot open the file\n", manifestPath.c_str());
    return 1;
  }
  fs::create_directories(outDir);
  std::string line;
  int lineNumber = 0;
  int written = 0;
  while (std::getline(manifest, line)) {
    ++lineNumber;
    if (trimmed(line).empty() || trimmed(line)[0] == '#') continue;
    std::vector<std::string> fields = split(line, " | ");
    try {
      if (fields.size() < 4) throw std::runtime_error("expected 4 fields separated by ' | '");
      std::string model = trimmed(fields[1]);
      if (model == "-") continue;
      writeCase(trimmed(fields[0]), model, outDir);
      ++written;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "error: %s:%d: %s\n", manifestPath.c_str(), lineNumber, error.what());
      return 1;
    }
  }
  writeFile(fs::path(outDir) / "corpus.stamp", std::to_string(written) + " models\n");
  return 0;
}

}  // namespace onyx::test
