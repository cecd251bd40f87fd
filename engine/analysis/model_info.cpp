#include "analysis/model_info.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "util/json_writer.h"

namespace onyx {
namespace {

bool isDefaultDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

int64_t tensorBytes(const Tensor& tensor) {
  if (tensor.dtype() != DataType::String) return int64_t(tensor.byteSize());
  int64_t bytes = 0;
  for (const std::string& text : tensor.stringValues()) bytes += int64_t(text.size());
  return bytes;
}

class Summarizer {
 public:
  explicit Summarizer(ModelInfo& info) : info_(info) {}

  void countInitializers(const Graph& graph) {
    for (const Value* value : graph.initializers()) addTensor(*value->initializer());
    for (const Value* value : graph.sparseInitializers()) {
      const SparseTensor& sparse = *value->sparseInitializer();
      ++info_.initializerCount;
      info_.parameterCount += sparse.values.elementCount();
      info_.parameterBytes += tensorBytes(sparse.values) + tensorBytes(sparse.indices);
      noteExternal(sparse.values);
      noteExternal(sparse.indices);
    }
  }

  // Records every body graph held by the nodes of `graph`, depth-first, and counts what they hold.
  void walkSubgraphs(const Graph& graph, int depth) {
    for (const Node* node : graph.nodes()) {
      for (const Attribute& attribute : node->attributes()) {
        if (Graph* body = attribute.getGraph()) {
          addSubgraph(*node, attribute.name(), *body, depth);
        } else if (const auto* bodies = attribute.getGraphs()) {
          for (size_t i = 0; i < bodies->size(); ++i)
            if ((*bodies)[i])
              addSubgraph(*node, attribute.name() + "[" + std::to_string(i) + "]", *(*bodies)[i], depth);
        }
      }
    }
  }

 private:
  void addSubgraph(const Node& owner, std::string attribute, const Graph& body, int depth) {
    info_.subgraphs.push_back({owner.describe(), std::move(attribute), depth, int64_t(body.nodeCount())});
    info_.subgraphNodeCount += int64_t(body.nodeCount());
    countInitializers(body);
    walkSubgraphs(body, depth + 1);
  }

  void addTensor(const Tensor& tensor) {
    ++info_.initializerCount;
    info_.parameterCount += tensor.elementCount();
    info_.parameterBytes += tensorBytes(tensor);
    noteExternal(tensor);
  }

  void noteExternal(const Tensor& tensor) {
    const ExternalData* external = tensor.externalData();
    if (!external) return;
    auto found = std::find_if(
        info_.externalData.begin(), info_.externalData.end(),
        [&](const ModelInfo::ExternalFile& file) { return file.location == external->location; });
    if (found == info_.externalData.end()) {
      info_.externalData.push_back({external->location, 0, 0});
      found = info_.externalData.end() - 1;
    }
    ++found->tensorCount;
    found->bytes += tensorBytes(tensor);
  }

  ModelInfo& info_;
};

std::vector<ModelInfo::ValueSummary> summarizeValues(const std::vector<Value*>& values,
                                                     bool skipInitializers) {
  std::vector<ModelInfo::ValueSummary> summaries;
  for (const Value* value : values) {
    if (!value || (skipInitializers && value->isInitializer())) continue;
    summaries.push_back({value->name(), value->type().toString()});
  }
  return summaries;
}

// Rows of cells, printed with two-space indent and columns padded to their widest cell.
class TextTable {
 public:
  explicit TextTable(std::vector<bool> rightAligned) : rightAligned_(std::move(rightAligned)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  void appendTo(std::string& out) const {
    if (rows_.empty()) out += "  (none)\n";
    std::vector<size_t> widths(rightAligned_.size(), 0);
    for (const auto& row : rows_)
      for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    for (const auto& row : rows_) {
      std::string line = " ";
      for (size_t c = 0; c < row.size(); ++c) {
        bool last = c + 1 == row.size();
        std::string pad(widths[c] - row[c].size(), ' ');
        line += ' ';
        if (rightAligned_[c])
          line += pad + row[c];
        else
          line += last ? row[c] : row[c] + pad;
        if (!last) line += ' ';
      }
      out += line + "\n";
    }
  }

 private:
  std::vector<bool> rightAligned_;
  std::vector<std::vector<std::string>> rows_;
};

std::string opsetText(const std::vector<OpsetImport>& imports) {
  std::string text;
  for (const OpsetImport& import : imports) {
    if (!text.empty()) text += ", ";
    text += (import.domain.empty() ? std::string("ai.onnx") : import.domain) + " " +
            std::to_string(import.version);
  }
  return text.empty() ? "(none)" : text;
}

std::string orNone(const std::string& text) {
  return text.empty() ? "(none)" : text;
}

std::string plural(int64_t count, const char* one, const char* many) {
  return groupThousands(count) + " " + (count == 1 ? one : many);
}

void appendValues(std::string& out, const char* title, const std::vector<ModelInfo::ValueSummary>& values) {
  out += "\n" + std::string(title) + " (" + std::to_string(values.size()) + ")\n";
  TextTable table({false, false});
  for (const auto& value : values) table.add({value.name, value.type});
  table.appendTo(out);
}

}  // namespace

std::string ModelInfo::OpCount::label() const {
  return isDefaultDomain(domain) ? opType : domain + "::" + opType;
}

ModelInfo summarizeModel(const Model& model) {
  ModelInfo info;
  info.irVersion = model.irVersion;
  info.producerName = model.producerName;
  info.producerVersion = model.producerVersion;
  info.domain = model.domain;
  info.modelVersion = model.modelVersion;
  info.graphName = model.graph().name();
  info.opsetImports = model.opsetImports;
  info.metadata = model.metadata;

  const Graph& graph = model.graph();
  info.inputs = summarizeValues(graph.inputs(), /*skipInitializers=*/true);
  info.outputs = summarizeValues(graph.outputs(), /*skipInitializers=*/false);

  std::map<std::pair<std::string, std::string>, int64_t> counts;
  for (const Node* node : graph.nodes())
    ++counts[{isDefaultDomain(node->domain()) ? "" : node->domain(), node->opType()}];
  info.nodeCount = int64_t(graph.nodeCount());
  for (const auto& [key, count] : counts) info.opCounts.push_back({key.first, key.second, count});
  std::stable_sort(info.opCounts.begin(), info.opCounts.end(),
                   [](const ModelInfo::OpCount& a, const ModelInfo::OpCount& b) {
                     if (a.count != b.count) return a.count > b.count;
                     return a.label() < b.label();
                   });

  Summarizer summarizer(info);
  summarizer.countInitializers(graph);
  summarizer.walkSubgraphs(graph, 1);

  for (const auto& function : model.functions) {
    if (!function) continue;
    info.functions.push_back({function->domain, function->name, function->overload,
                              function->body ? int64_t(function->body->nodeCount()) : 0});
  }
  return info;
}

std::string groupThousands(int64_t number) {
  std::string digits = std::to_string(number < 0 ? -number : number);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return number < 0 ? "-" + grouped : grouped;
}

std::string humanBytes(int64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double scaled = double(bytes);
  int unit = -1;
  while (scaled >= 1024 && unit < 3) {
    scaled /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", scaled, kUnits[unit]);
  return text;
}

std::string formatModelInfoText(const ModelInfo& info) {
  std::string out = "Model\n";
  std::string producer = info.producerName;
  if (!info.producerVersion.empty()) producer += (producer.empty() ? "" : " ") + info.producerVersion;
  TextTable model({false, false});
  model.add({"IR version:", std::to_string(info.irVersion)});
  model.add({"Producer:", orNone(producer)});
  model.add({"Domain:", orNone(info.domain)});
  model.add({"Model version:", std::to_string(info.modelVersion)});
  model.add({"Graph name:", orNone(info.graphName)});
  model.add({"Opsets:", opsetText(info.opsetImports)});
  model.add({"Metadata:",
             info.metadata.empty() ? "(none)" : plural(int64_t(info.metadata.size()), "entry", "entries")});
  model.appendTo(out);
  if (!info.metadata.empty()) {
    TextTable metadata({false, false});
    for (const StringPair& entry : info.metadata) metadata.add({"  " + entry.key + ":", entry.value});
    metadata.appendTo(out);
  }

  appendValues(out, "Inputs", info.inputs);
  appendValues(out, "Outputs", info.outputs);

  out += "\nNodes (" + groupThousands(info.nodeCount) + ")\n";
  TextTable ops({false, true});
  for (const auto& op : info.opCounts) ops.add({op.label(), groupThousands(op.count)});
  ops.appendTo(out);

  out += "\nSubgraphs (" + std::to_string(info.subgraphs.size()) + ", " +
         plural(info.subgraphNodeCount, "node", "nodes") + ")\n";
  TextTable subgraphs({false, false, true});
  for (const auto& subgraph : info.subgraphs)
    subgraphs.add({std::string(2 * size_t(subgraph.depth - 1), ' ') + subgraph.owner, subgraph.attribute,
                   plural(subgraph.nodeCount, "node", "nodes")});
  subgraphs.appendTo(out);

  out += "\nParameters\n";
  TextTable parameters({false, false});
  parameters.add({"Initializers:", groupThousands(info.initializerCount)});
  parameters.add({"Elements:", groupThousands(info.parameterCount)});
  parameters.add(
      {"Bytes:", groupThousands(info.parameterBytes) + " (" + humanBytes(info.parameterBytes) + ")"});
  parameters.add({"External data:", info.externalData.empty()
                                        ? "(none)"
                                        : plural(int64_t(info.externalData.size()), "file", "files")});
  parameters.appendTo(out);
  if (!info.externalData.empty()) {
    TextTable files({false, true, true});
    for (const auto& file : info.externalData)
      files.add({"  " + file.location, plural(file.tensorCount, "tensor", "tensors"),
                 groupThousands(file.bytes) + " bytes"});
    files.appendTo(out);
  }

  out += "\nFunctions (" + std::to_string(info.functions.size()) + ")\n";
  TextTable functions({false, true});
  for (const auto& function : info.functions) {
    std::string name = function.domain + "::" + function.name;
    if (!function.overload.empty()) name += ":" + function.overload;
    functions.add({name, plural(function.nodeCount, "node", "nodes")});
  }
  functions.appendTo(out);
  return out;
}

std::string formatModelInfoJson(const ModelInfo& info) {
  JsonWriter json;
  json.beginObject();
  json.member("irVersion", info.irVersion);
  json.key("producer").beginObject();
  json.member("name", info.producerName).member("version", info.producerVersion);
  json.endObject();
  json.member("domain", info.domain);
  json.member("modelVersion", info.modelVersion);
  json.member("graphName", info.graphName);
  json.key("opsetImports").beginArray();
  for (const OpsetImport& import : info.opsetImports)
    json.beginObject().member("domain", import.domain).member("version", import.version).endObject();
  json.endArray();
  json.key("metadata").beginArray();
  for (const StringPair& entry : info.metadata)
    json.beginObject().member("key", entry.key).member("value", entry.value).endObject();
  json.endArray();

  for (auto [name, values] : {std::pair{"inputs", &info.inputs}, std::pair{"outputs", &info.outputs}}) {
    json.key(name).beginArray();
    for (const auto& value : *values)
      json.beginObject().member("name", value.name).member("type", value.type).endObject();
    json.endArray();
  }

  json.member("nodeCount", info.nodeCount);
  json.key("opCounts").beginArray();
  for (const auto& op : info.opCounts) {
    json.beginObject().member("domain", op.domain).member("opType", op.opType).member("count", op.count);
    json.endObject();
  }
  json.endArray();
  json.member("subgraphNodeCount", info.subgraphNodeCount);
  json.key("subgraphs").beginArray();
  for (const auto& subgraph : info.subgraphs) {
    json.beginObject().member("owner", subgraph.owner).member("attribute", subgraph.attribute);
    json.member("depth", subgraph.depth).member("nodeCount", subgraph.nodeCount).endObject();
  }
  json.endArray();

  json.key("parameters").beginObject();
  json.member("initializerCount", info.initializerCount);
  json.member("elements", info.parameterCount);
  json.member("bytes", info.parameterBytes);
  json.endObject();
  json.key("externalData").beginArray();
  for (const auto& file : info.externalData) {
    json.beginObject().member("location", file.location).member("tensorCount", file.tensorCount);
    json.member("bytes", file.bytes).endObject();
  }
  json.endArray();

  json.key("functions").beginArray();
  for (const auto& function : info.functions) {
    json.beginObject().member("domain", function.domain).member("name", function.name);
    json.member("overload", function.overload).member("nodeCount", function.nodeCount).endObject();
  }
  json.endArray();
  json.endObject();
  return json.str() + "\n";
}

}  // namespace onyx
