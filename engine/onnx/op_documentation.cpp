#include "onnx/op_documentation.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace onyx {
namespace {

// Runs of whitespace (line breaks included) as one space, without leading or trailing ones.
std::string oneLine(std::string_view text) {
  std::string line;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  return line;
}

// The doc's first paragraph: text up to the first blank line.
std::string firstParagraph(std::string_view doc) {
  size_t start = doc.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return {};
  size_t end = doc.find("\n\n", start);
  return oneLine(doc.substr(start, end == std::string_view::npos ? doc.size() - start : end - start));
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

template <class List, class Format>
std::string listText(const List& items, Format format) {
  std::string text = "[";
  for (int i = 0; i < items.size(); ++i) text += (i ? ", " : "") + format(items.Get(i));
  return text + "]";
}

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string defaultText(const onnx::AttributeProto& value) {
  using Proto = onnx::AttributeProto;
  switch (value.type()) {
    case Proto::INT: return std::to_string(value.i());
    case Proto::FLOAT: return number(value.f());
    case Proto::STRING: return value.s();
    case Proto::INTS: return listText(value.ints(), [](int64_t v) { return std::to_string(v); });
    case Proto::FLOATS: return listText(value.floats(), [](float v) { return number(v); });
    case Proto::STRINGS: return listText(value.strings(), [](const std::string& v) { return v; });
    default: return "(set)";
  }
}

std::vector<OpParameterDoc> parametersOf(const std::vector<onnx::OpSchema::FormalParameter>& formals,
                                         const onnx::OpSchema& schema) {
  std::vector<OpParameterDoc> parameters;
  for (const auto& formal : formals) {
    OpParameterDoc parameter;
    parameter.name = formal.GetName();
    parameter.typeText = formal.GetTypeStr();
    parameter.description = oneLine(formal.GetDescription());
    parameter.optional = formal.GetOption() == onnx::OpSchema::Optional;
    parameter.variadic = formal.GetOption() == onnx::OpSchema::Variadic;
    for (const auto& constraint : schema.typeConstraintParams()) {
      if (constraint.type_param_str != parameter.typeText) continue;
      for (const std::string& allowed : constraint.allowed_type_strs)
        parameter.allowedTypes += (parameter.allowedTypes.empty() ? "" : ", ") + allowed;
    }
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

}  // namespace

std::optional<OpDocumentation> onnxOpDocumentation(std::string_view domain, std::string_view opType,
                                                   int64_t opsetVersion) {
  if (domain == "com.microsoft") return contribOpDocumentation(opType);
  const std::string domainName = domain == "ai.onnx" ? "" : std::string(domain);
  const int version = static_cast<int>(std::clamp<int64_t>(opsetVersion, 1, 1 << 20));
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(std::string(opType), version, domainName);
  if (!schema) return std::nullopt;
  OpDocumentation doc;
  doc.domain = domainName;
  doc.opType = schema->Name();
  doc.sinceVersion = schema->SinceVersion();
  doc.deprecated = schema->Deprecated();
  doc.doc = schema->doc() ? schema->doc() : "";
  doc.summary = firstParagraph(doc.doc);
  doc.inputs = parametersOf(schema->inputs(), *schema);
  doc.outputs = parametersOf(schema->outputs(), *schema);
  for (const auto& [name, attribute] : schema->attributes()) {  // a std::map: by name
    OpAttributeDoc entry;
    entry.name = name;
    entry.type = lowercase(onnx::AttributeProto_AttributeType_Name(attribute.type));
    entry.description = oneLine(attribute.description);
    entry.required = attribute.required;
    if (attribute.default_value.has_name()) entry.defaultValue = defaultText(attribute.default_value);
    doc.attributes.push_back(std::move(entry));
  }
  return doc;
}

std::string formatOpDocumentation(const OpDocumentation& doc) {
  std::ostringstream out;
  out << "ONNX schema: " << (doc.domain.empty() ? "ai.onnx" : doc.domain) << "::" << doc.opType << ", since opset "
      << doc.sinceVersion << (doc.deprecated ? " (deprecated)" : "") << "\n";
  if (!doc.summary.empty()) out << "  " << doc.summary << "\n";
  auto parameters = [&](const char* title, const std::vector<OpParameterDoc>& list) {
    out << title << ":\n";
    for (const OpParameterDoc& p : list) {
      out << "  " << p.name << (p.optional ? " (optional)" : "") << (p.variadic ? " (variadic)" : "") << ": "
          << p.typeText;
      if (!p.allowedTypes.empty()) out << " in {" << p.allowedTypes << "}";
      if (!p.description.empty()) out << " - " << p.description;
      out << "\n";
    }
  };
  parameters("inputs", doc.inputs);
  parameters("outputs", doc.outputs);
  out << "attributes:" << (doc.attributes.empty() ? " (none)" : "") << "\n";
  for (const OpAttributeDoc& a : doc.attributes) {
    out << "  " << a.name << ": " << a.type;
    if (a.required) out << ", required";
    else if (!a.defaultValue.empty()) out << " = " << a.defaultValue;
    if (!a.description.empty()) out << " - " << a.description;
    out << "\n";
  }
  return out.str();
}

}  // namespace onyx
