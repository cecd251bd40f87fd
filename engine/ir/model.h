#pragma once
// A model: metadata, opset imports, the main graph and model-local functions. It owns the change
// listeners, the node id counter and the open transaction, because edits anywhere in it share them.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/changes.h"
#include "ir/graph.h"

namespace onyx {

class Transaction;

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
  FieldPresence presence;  // which OperatorSetIdProto fields the file had; not part of equality
  friend bool operator==(const OpsetImport& a, const OpsetImport& b) {
    return a.domain == b.domain && a.version == b.version;
  }
};

struct StringPair {
  std::string key;
  std::string value;
  friend bool operator==(const StringPair&, const StringPair&) = default;
};

// A model-local function: a body graph whose inputs and outputs are the function's formal parameters.
struct Function {
  std::string domain;
  std::string name;
  std::string overload;
  std::vector<std::string> attributeNames;  // attributes without default
  std::vector<Attribute> attributeDefaults;  // attribute_proto: attributes with default values
  std::vector<OpsetImport> opsetImports;
  std::shared_ptr<Graph> body;
  std::string docString;
  std::string unknownFields;
  FieldPresence presence;  // which FunctionProto fields the file had
};

class Model {
 public:
  Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  int64_t irVersion = 8;
  std::vector<OpsetImport> opsetImports;
  std::string producerName;
  std::string producerVersion;
  std::string domain;
  int64_t modelVersion = 0;
  std::string docString;
  std::vector<StringPair> metadata;
  std::vector<std::shared_ptr<Function>> functions;
  std::string unknownFields;       // ModelProto fields onnx 1.12 does not know
  std::string trainingInfo;        // serialized TrainingInfoProto entries, kept opaque
  std::vector<std::string> trainingInfoEntries;
  FieldPresence presence;          // which ModelProto fields the file had
  std::filesystem::path path;      // where it was loaded from; external data resolves against its folder

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }
  // Opset version imported for a domain ("" and "ai.onnx" are the same); 0 when not imported.
  int64_t opsetVersion(std::string_view domain) const;
  const Function* findFunction(std::string_view domain, std::string_view name, std::string_view overload = {}) const;

  // Change events from every edit in the model (main graph, bodies, functions).
  using Listener = std::function<void(const ChangeEvent&)>;
  int subscribe(Listener listener);
  void unsubscribe(int token);
  void emit(const ChangeEvent& event) const;

  NodeId allocateNodeId() { return nextNodeId_++; }
  Transaction* activeTransaction() const { return activeTransaction_; }

 private:
  friend class Transaction;
  std::unique_ptr<Graph> graph_;
  std::vector<std::pair<int, Listener>> listeners_;
  int nextListenerToken_ = 1;
  NodeId nextNodeId_ = 1;
  Transaction* activeTransaction_ = nullptr;
};

}  // namespace onyx
