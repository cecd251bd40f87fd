// ONNX's textual syntax, through libonnx's parser and printer. The 1.12 printer has no ModelProto form, so
// the model header (`<ir_version: 8, opset_import: [...]>`) is written here in the syntax its parser reads.
#include <onnx/defs/parser.h>
#include <onnx/defs/printer.h>

#include <sstream>

#include "onnx/onnx_io.h"
#include "onnx/proto_convert.h"

namespace onyx {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Expected<std::unique_ptr<Model>> parseModelText(std::string_view text) {
  std::string input(text);
  onnx::ModelProto proto;
  onnx::OnnxParser parser(input.c_str());
  auto status = parser.Parse(proto);
  if (!status.IsOK()) return makeError("cannot parse the ONNX text: " + status.ErrorMessage());
  return onnx_io::modelFromProto(proto, {});
}

namespace {

// Tensors are printed where they are: external data stays a reference to its file.
const onnx_io::PlacementPolicy& asLoaded() {
  static const onnx_io::PlacementPolicy policy = [](const Tensor&) -> Expected<onnx_io::TensorPlacement> {
    return onnx_io::TensorPlacement{};
  };
  return policy;
}

}  // namespace

std::string printModelText(const Model& model) {
  onnx::ModelProto proto;
  if (auto ok = onnx_io::modelToProto(model, asLoaded(), proto); !ok)
    return "# " + ok.error().toString() + "\n";
  std::ostringstream out;
  out << "<\n  ir_version: " << proto.ir_version() << ",\n  opset_import: [";
  for (int i = 0; i < proto.opset_import_size(); ++i)
    out << (i ? ", " : "") << quoted(proto.opset_import(i).domain()) << " : "
        << proto.opset_import(i).version();
  out << "]";
  if (proto.has_producer_name()) out << ",\n  producer_name: " << quoted(proto.producer_name());
  if (proto.has_producer_version()) out << ",\n  producer_version: " << quoted(proto.producer_version());
  if (proto.has_domain()) out << ",\n  domain: " << quoted(proto.domain());
  if (proto.has_model_version()) out << ",\n  model_version: " << proto.model_version();
  if (proto.has_doc_string()) out << ",\n  doc_string: " << quoted(proto.doc_string());
  out << "\n>\n";
  onnx::operator<<(out, proto.graph());  // ends with a newline
  for (const auto& function : proto.functions()) {
    out << "\n";
    onnx::operator<<(out, function);
    out << "\n";
  }
  return out.str();
}

std::string printGraphText(const Graph& graph) {
  onnx::GraphProto proto;
  if (auto ok = onnx_io::graphToProto(graph, asLoaded(), proto); !ok) return "# " + ok.error().toString() + "\n";
  std::ostringstream out;
  onnx::operator<<(out, proto);
  return out.str();
}

}  // namespace onyx
