#pragma once
// What `onyx info` prints and the GUI's summary shows: a model's metadata, interface, op mix, parameters,
// external data, local functions and subgraphs, gathered in one pass over the IR.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/model.h"

namespace onyx {

struct ModelInfo {
  struct ValueSummary {
    std::string name;
    std::string type;  // Type::toString() of the stored type: "float32[N, 3, 224, 224]", "?" when untyped
  };
  struct OpCount {
    std::string domain;  // "" for ai.onnx
    std::string opType;
    int64_t count = 0;
    std::string label() const;  // "Conv"; "com.microsoft::FusedConv" outside ai.onnx (as Node::describe)
  };
  // A body graph held by a node's attribute (If branches, Loop and Scan bodies), at any depth.
  struct SubgraphSummary {
    std::string owner;      // Node::describe() of the node holding it: "If '/cond/If' (#7)"
    std::string attribute;  // "then_branch", "body"; "body[1]" for the second graph of a list attribute
    int depth = 1;          // 1: held by a main-graph node; 2: by a node inside such a body...
    int64_t nodeCount = 0;  // its own nodes, not those of bodies nested in it
  };
  struct ExternalFile {
    std::string location;  // as written in the model
    int64_t tensorCount = 0;
    int64_t bytes = 0;
  };
  struct FunctionSummary {
    std::string domain;
    std::string name;
    std::string overload;
    int64_t nodeCount = 0;
  };

  int64_t irVersion = 0;
  std::string producerName;
  std::string producerVersion;
  std::string domain;
  int64_t modelVersion = 0;
  std::string graphName;
  std::vector<OpsetImport> opsetImports;
  std::vector<StringPair> metadata;

  // Graph inputs that are not also initializers (those are parameters with defaults, counted below).
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;

  int64_t nodeCount = 0;                   // main graph only
  std::vector<OpCount> opCounts;           // main graph, most frequent first, then by label
  std::vector<SubgraphSummary> subgraphs;  // depth-first, in node order
  int64_t subgraphNodeCount = 0;           // every node of every subgraph

  // Initializers of the main graph and of every subgraph; sparse ones count their stored values.
  int64_t initializerCount = 0;
  int64_t parameterCount = 0;              // elements
  int64_t parameterBytes = 0;              // as stored (sub-byte types packed, strings by their length)
  std::vector<ExternalFile> externalData;  // in order of first use

  std::vector<FunctionSummary> functions;
};

ModelInfo summarizeModel(const Model& model);

// The text `onyx info` prints, ending in a newline.
std::string formatModelInfoText(const ModelInfo& info);
// The JSON `onyx info --json` prints (keys in README.md, "onyx info --json"), ending in a newline.
std::string formatModelInfoJson(const ModelInfo& info);

// "1,234,567"; used by the text form and the GUI.
std::string groupThousands(int64_t number);
// "0 B", "812 B", "48.2 KiB", "1.3 GiB".
std::string humanBytes(int64_t bytes);

}  // namespace onyx
