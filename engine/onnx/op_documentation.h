#pragma once
// An op's documentation from ONNX's own schema registry (the one libonnx carries): the summary, the
// inputs and outputs with their types and descriptions, the attributes with their types and defaults.
// The Inspector shows it for the selected node; `onyx ops NAME` prints it under the catalogue's facts.
// Plain strings: callers above engine/onnx never see onnx's headers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onyx {

struct OpParameterDoc {
  std::string name;
  std::string typeText;     // "T", "tensor(int64)"; with the constraint spelled out in `allowedTypes`
  std::string allowedTypes;  // "tensor(float16), tensor(float), tensor(double)"; "" when typeText is concrete
  std::string description;
  bool optional = false;
  bool variadic = false;
};

struct OpAttributeDoc {
  std::string name;
  std::string type;  // "int", "ints", "string", "float", "tensor", "graph"...
  std::string description;
  bool required = false;
  std::string defaultValue;  // "1", "NOTSET", "[]"; "" when there is none
};

struct OpDocumentation {
  std::string domain;  // "" for ai.onnx
  std::string opType;
  int sinceVersion = 0;  // the version of the definition in effect at the asked opset
  bool deprecated = false;
  std::string summary;  // the first paragraph of the doc, on one line
  std::string doc;      // the whole doc text, markdown as the schema writes it
  std::vector<OpParameterDoc> inputs;
  std::vector<OpParameterDoc> outputs;
  std::vector<OpAttributeDoc> attributes;  // by name
};

// The schema of `opType` in `domain` ("" or "ai.onnx" for the standard ops) at `opsetVersion` (its newest
// definition at or below it; libonnx 1.12 knows opsets up to 17, later ones read as its newest).
// nullopt when the registry has no such op (custom domains, ops newer than the library); com.microsoft ops come
// from contribOpDocumentation.
std::optional<OpDocumentation> onnxOpDocumentation(std::string_view domain, std::string_view opType,
                                                   int64_t opsetVersion);

// ONNX Runtime's com.microsoft ops that Onyx implements, written from ONNX Runtime's ContribOperators.md
// (ops/contrib/contrib_documentation.cpp); onnxOpDocumentation answers with it for the com.microsoft domain.
std::optional<OpDocumentation> contribOpDocumentation(std::string_view opType);

// The text `onyx ops NAME` prints: summary, inputs, outputs, attributes, one per line.
std::string formatOpDocumentation(const OpDocumentation& doc);

}  // namespace onyx
