#include "shapes/shape_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace onyx {

namespace {

constexpr size_t kRankIndex = static_cast<size_t>(-1);

std::string dtypeText(const Type& type) {
  switch (type.kind()) {
    case Type::Kind::None: return "?";
    case Type::Kind::Tensor:
    case Type::Kind::SparseTensor: return std::string(dataTypeName(type.elemType()));
    default: return type.toString();
  }
}

void collectGraph(const Graph& graph, const ShapeInference& inference, bool topLevel, std::vector<const Value*>& values) {
  if (topLevel) {
    for (const Value* input : graph.inputs()) {
      if (!input->isInitializer()) values.push_back(input);
    }
  }
  for (const Node* node : graph.nodes()) {
    for (const Value* output : node->outputs()) {
      if (output) values.push_back(output);
    }
    for (const Graph* body : node->subgraphs()) collectGraph(*body, inference, false, values);
  }
}

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

std::string describeOrigin(const DimOrigin* origin) {
  if (!origin) return "the model: no size given";
  if (origin->node == kNoNode) return "the model: " + origin->reason;
  std::string text = origin->opType;
  if (!origin->nodeName.empty()) text += " '" + origin->nodeName + "'";
  text += " (#" + std::to_string(origin->node) + "): " + origin->reason;
  return text;
}

bool isDataDependent(const DimOrigin* origin) {
  if (!origin) return false;
  static const char* const kDataDependentOps[] = {"NonZero", "NonMaxSuppression", "Unique", "Compress", "TopK",
                                                  "StringSplit", "StringNormalizer", "ImageDecoder", "Loop"};
  for (const char* op : kDataDependentOps) {
    if (origin->opType == op) return true;
  }
  return origin->reason.find("depends on") != std::string::npos;
}

ShapeReport buildShapeReport(const Model& model, const ShapeInference& inference) {
  std::vector<const Value*> values;
  collectGraph(model.graph(), inference, true, values);
  ShapeReport report;
  std::map<const DimOrigin*, size_t> groupIndex;
  for (const Value* value : values) {
    ShapeRow row;
    row.value = value;
    const InferredValue* inferred = inference.find(value);
    Type type = inferred ? inferred->type : Type();
    row.dtype = dtypeText(type);
    if (type.isTensor() || type.kind() == Type::Kind::SparseTensor) {
      if (type.shape()) {
        row.shape = shapeToString(*type.shape());
        for (size_t i = 0; i < type.shape()->size(); ++i) {
          const Dim& dim = (*type.shape())[i];
          if (dim.isUnknown()) {
            row.unknownOrigins.push_back(dim.origin());
            row.unknownDims.push_back(i);
          }
        }
      } else {
        row.shape = "?";
        row.unknownOrigins.push_back(inferred ? inferred->rankOrigin : nullptr);
        row.unknownDims.push_back(kRankIndex);
      }
    } else {
      row.shape = type.isNone() ? "?" : "";
      if (type.isNone()) {
        row.unknownOrigins.push_back(inferred ? inferred->rankOrigin : nullptr);
        row.unknownDims.push_back(kRankIndex);
      }
    }
    ++report.summary.values;
    if (!row.unknownOrigins.empty()) {
      row.unresolved = true;
      row.dataDependent = std::all_of(row.unknownOrigins.begin(), row.unknownOrigins.end(),
                                      [](const auto& origin) { return isDataDependent(origin.get()); });
      ++report.summary.unresolved;
      if (row.dataDependent) ++report.summary.dataDependent;
      std::vector<const DimOrigin*> seen;
      for (const auto& origin : row.unknownOrigins) {
        if (std::find(seen.begin(), seen.end(), origin.get()) != seen.end()) continue;
        seen.push_back(origin.get());
        auto [it, inserted] = groupIndex.emplace(origin.get(), report.groups.size());
        if (inserted) report.groups.push_back({origin, {}, isDataDependent(origin.get())});
        report.groups[it->second].values.push_back(value);
      }
    } else if (type.isTensor() && type.shape() && staticDims(*type.shape())) {
      ++report.summary.staticValues;
    } else if (type.isTensor()) {
      ++report.summary.symbolic;
    } else {
      ++report.summary.staticValues;  // sequences, optionals and maps with known types
    }
    report.rows.push_back(std::move(row));
  }
  return report;
}

std::string summaryLine(const ShapeSummary& s) {
  return "values: " + std::to_string(s.values) + ", static: " + std::to_string(s.staticValues) +
         ", symbolic: " + std::to_string(s.symbolic) + ", unresolved: " + std::to_string(s.unresolved) +
         " (data-dependent: " + std::to_string(s.dataDependent) + ")";
}

std::string reportText(const ShapeReport& report) {
  size_t nameWidth = 4, typeWidth = 5;
  for (const ShapeRow& row : report.rows) {
    nameWidth = std::max(nameWidth, row.value->name().size());
    typeWidth = std::max(typeWidth, row.dtype.size());
  }
  std::ostringstream out;
  auto pad = [](const std::string& text, size_t width) { return text + std::string(width - std::min(width, text.size()), ' '); };
  out << pad("name", nameWidth) << "  " << pad("dtype", typeWidth) << "  shape\n";
  for (const ShapeRow& row : report.rows) {
    out << pad(row.value->name(), nameWidth) << "  " << pad(row.dtype, typeWidth) << "  " << row.shape << "\n";
  }
  out << summaryLine(report.summary) << "\n";
  if (!report.groups.empty()) out << "unresolved dims by origin:\n";
  for (const UnresolvedGroup& group : report.groups) {
    out << "  " << describeOrigin(group.origin.get()) << (group.dataDependent ? " [data-dependent]" : "") << "\n    "
        << group.values.size() << (group.values.size() == 1 ? " value: " : " values: ");
    for (size_t i = 0; i < group.values.size() && i < 5; ++i) out << (i ? ", " : "") << group.values[i]->name();
    if (group.values.size() > 5) out << ", ...";
    out << "\n";
  }
  return out.str();
}

std::string reportJson(const ShapeReport& report, const ShapeInference& inference) {
  std::string out = "{\n  \"values\": [";
  for (size_t r = 0; r < report.rows.size(); ++r) {
    const ShapeRow& row = report.rows[r];
    out += r ? ",\n    {" : "\n    {";
    out += "\"name\": ";
    appendJsonString(out, row.value->name());
    out += ", \"dtype\": ";
    appendJsonString(out, row.dtype);
    out += ", \"shape\": ";
    const InferredValue* inferred = inference.find(row.value);
    const auto* shape = inferred && inferred->type.shape() ? &*inferred->type.shape() : nullptr;
    if (!shape) {
      out += "null";
    } else {
      out += "[";
      for (size_t i = 0; i < shape->size(); ++i) {
        const Dim& dim = (*shape)[i];
        if (i) out += ", ";
        if (auto v = dim.value()) out += std::to_string(*v);
        else appendJsonString(out, dim.toString());
      }
      out += "]";
    }
    out += ", \"unresolved\": [";
    for (size_t u = 0; u < row.unknownOrigins.size(); ++u) {
      const DimOrigin* origin = row.unknownOrigins[u].get();
      out += u ? ", {" : "{";
      out += "\"dim\": ";
      out += row.unknownDims[u] == kRankIndex ? "\"rank\"" : std::to_string(row.unknownDims[u]);
      out += ", \"origin_node\": ";
      appendJsonString(out, origin ? origin->nodeName : "");
      out += ", \"origin_id\": " + std::to_string(origin ? origin->node : kNoNode);
      out += ", \"origin_op\": ";
      appendJsonString(out, origin ? origin->opType : "");
      out += ", \"reason\": ";
      appendJsonString(out, origin ? origin->reason : "no size given in the model");
      out += ", \"data_dependent\": ";
      out += isDataDependent(origin) ? "true" : "false";
      out += "}";
    }
    out += "]}";
  }
  out += "\n  ],\n  \"constraints\": [";
  for (size_t i = 0; i < inference.constraints.size(); ++i) {
    const ShapeConstraint& constraint = inference.constraints[i];
    out += i ? ",\n    {" : "\n    {";
    out += "\"left\": ";
    appendJsonString(out, constraint.left.toString());
    out += ", \"right\": ";
    appendJsonString(out, constraint.right.toString());
    out += ", \"node\": ";
    appendJsonString(out, constraint.where);
    out += "}";
  }
  out += inference.constraints.empty() ? "],\n  \"unified\": {" : "\n  ],\n  \"unified\": {";
  bool first = true;
  for (const auto& [symbol, expr] : inference.unified) {
    out += first ? "" : ", ";
    first = false;
    appendJsonString(out, symbol);
    out += ": ";
    appendJsonString(out, expr.toString());
  }
  const ShapeSummary& s = report.summary;
  out += "},\n  \"summary\": {\"values\": " + std::to_string(s.values) + ", \"static\": " + std::to_string(s.staticValues) +
         ", \"symbolic\": " + std::to_string(s.symbolic) + ", \"unresolved\": " + std::to_string(s.unresolved) +
         ", \"data_dependent\": " + std::to_string(s.dataDependent) + "}\n}\n";
  return out;
}

}  // namespace onyx
