#pragma once
// The in-memory graph. Objects link by pointer, not by name: a Value knows its producer and its uses, a
// Use is (node, input index) or (graph, output index). Mutation goes only through the Rewriter
// (rewriter.h), which keeps these links consistent, records undo information and emits change events.
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/attribute.h"
#include "ir/tensor.h"
#include "ir/type.h"

namespace onyx {

class Graph;
class Model;
class Node;
class Rewriter;

struct Use {
  Node* node = nullptr;         // the consuming node, or
  Graph* graphOutput = nullptr;  // the graph that lists this value as its output
  int index = 0;                 // input index of the node, or output index of the graph
  friend bool operator==(const Use&, const Use&) = default;
};

class Value {
 public:
  const std::string& name() const { return name_; }
  const Type& type() const { return type_; }
  Graph* graph() const { return graph_; }  // the graph whose scope defines it
  Node* producer() const { return producer_; }
  int producerOutput() const { return producerOutput_; }
  const std::vector<Use>& uses() const { return uses_; }
  bool isGraphInput() const { return isGraphInput_; }
  bool isInitializer() const { return initializer_ != nullptr; }
  const Tensor* initializer() const { return initializer_.get(); }
  const SparseTensor* sparseInitializer() const { return sparseInitializer_.get(); }
  // Defined by nothing: no producer, not a graph input or initializer. Loading keeps such values so a
  // broken model can still be shown; verify() reports them.
  bool isUndefined() const {
    return !producer_ && !isGraphInput_ && !initializer_ && !sparseInitializer_;
  }
  bool hasValueInfo() const { return hasValueInfo_; }
  const std::string& docString() const { return listing().docString; }
  const std::string& unknownFields() const { return listing().unknownFields; }  // of its ValueInfoProto
  // The type its value_info entry declares, when that differs from type() (a graph output that value_info
  // also lists with less shape); a save writes each entry as the file had it. Cleared by setType.
  const std::optional<Type>& listedType() const { return listing().listedType; }

 private:
  friend class Graph;
  friend class Node;
  friend class Rewriter;
  std::string name_;
  Type type_;
  Graph* graph_ = nullptr;
  Node* producer_ = nullptr;
  int producerOutput_ = 0;
  std::vector<Use> uses_;
  bool isGraphInput_ = false;
  bool hasValueInfo_ = false;
  // What only value_info entries carry, apart so that the millions of values without one stay small.
  struct Listing {
    std::string docString;
    std::string unknownFields;
    std::optional<Type> listedType;
    bool empty() const { return docString.empty() && unknownFields.empty() && !listedType; }
  };
  const Listing& listing() const;
  void setListing(Listing listing);
  void setListedType(std::optional<Type> type);

  // Heap-held, not inline: a model can hold a million initializers, and most values are not one.
  std::unique_ptr<Tensor> initializer_;
  std::shared_ptr<const SparseTensor> sparseInitializer_;
  std::unique_ptr<Listing> listing_;
};

class Node {
 public:
  NodeId id() const { return id_; }
  const std::string& opType() const { return opType_; }
  const std::string& domain() const { return domain_; }  // "" is ai.onnx
  const std::string& overload() const { return overload_; }
  const std::string& name() const { return name_; }
  const std::string& docString() const { return docString_; }
  const std::string& unknownFields() const { return unknownFields_; }
  // The module of the exporting framework the node came from, as the loader read it from the node's
  // metadata_props (PyTorch 2.x: "/model/layers.0/self_attn"); nullopt when the file records none. The bytes
  // stay in unknownFields, which is what a save writes.
  const std::optional<std::string>& modulePath() const { return modulePath_; }
  FieldPresence presence() const { return presence_; }  // which NodeProto fields the file had
  Graph* graph() const { return graph_; }

  // Absent optional inputs and outputs (written "" in ONNX) are null.
  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  size_t inputCount() const { return inputs_.size(); }
  size_t outputCount() const { return outputs_.size(); }
  Value* output(size_t i) const { return i < outputs_.size() ? outputs_[i].get() : nullptr; }
  std::vector<Value*> outputs() const;

  const std::vector<Attribute>& attributes() const { return attributes_; }
  const Attribute* attribute(std::string_view name) const;
  int64_t attrInt(std::string_view name, int64_t fallback) const;
  float attrFloat(std::string_view name, float fallback) const;
  std::string attrString(std::string_view name, std::string_view fallback) const;
  std::optional<std::vector<int64_t>> attrInts(std::string_view name) const;
  std::vector<Graph*> subgraphs() const;

  // Scope path of the node's name: "/encoder/layer.0/attention/MatMul_1" -> "/encoder/layer.0/attention".
  std::string_view scopePath() const;
  // "Conv '/layer1/conv1/Conv' (#12)": how errors name a node.
  std::string describe() const;

 private:
  friend class Graph;
  friend class Rewriter;
  NodeId id_ = kNoNode;
  std::string opType_;
  std::string domain_;
  std::string overload_;
  std::string name_;
  std::string docString_;
  std::string unknownFields_;
  std::optional<std::string> modulePath_;
  FieldPresence presence_;
  Graph* graph_ = nullptr;
  std::vector<Value*> inputs_;
  std::vector<std::unique_ptr<Value>> outputs_;
  std::vector<Attribute> attributes_;
  std::list<std::unique_ptr<Node>>::iterator position_;
};

class Graph {
 public:
  using NodeList = std::list<std::unique_ptr<Node>>;

  // Iterates the nodes in stored order (the file's order, normally topological) as Node*.
  class NodeRange {
   public:
    class iterator {
     public:
      using difference_type = std::ptrdiff_t;
      using value_type = Node*;
      iterator() = default;
      explicit iterator(NodeList::const_iterator it) : it_(it) {}
      Node* operator*() const { return it_->get(); }
      iterator& operator++() { ++it_; return *this; }
      iterator operator++(int) { auto old = *this; ++it_; return old; }
      friend bool operator==(const iterator&, const iterator&) = default;

     private:
      NodeList::const_iterator it_;
    };
    explicit NodeRange(const NodeList& list) : list_(&list) {}
    iterator begin() const { return iterator(list_->begin()); }
    iterator end() const { return iterator(list_->end()); }
    size_t size() const { return list_->size(); }

   private:
    const NodeList* list_;
  };

  explicit Graph(Model* model, Graph* parent = nullptr, Node* owner = nullptr)
      : model_(model), parent_(parent), owner_(owner) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  Model* model() const { return model_; }
  Graph* parent() const { return parent_; }  // enclosing graph of a subgraph
  Node* owner() const { return owner_; }     // If/Loop/Scan node holding this body
  const std::string& name() const { return name_; }
  const std::string& docString() const { return docString_; }
  const std::string& unknownFields() const { return unknownFields_; }
  FieldPresence presence() const { return presence_; }  // which GraphProto fields the file had

  NodeRange nodes() const { return NodeRange(nodes_); }
  size_t nodeCount() const { return nodes_.size(); }
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  const std::vector<Value*>& initializers() const { return initializers_; }
  const std::vector<Value*>& sparseInitializers() const { return sparseInitializers_; }
  // Values that had a value_info entry, in file order (kept so a save writes the same entries back).
  const std::vector<Value*>& valueInfo() const { return valueInfo_; }

  // A value defined in this graph's own scope (inputs, initializers, node outputs), or null.
  Value* findValue(std::string_view name) const;
  // Same, then in the enclosing graphs: how subgraph bodies see outer values.
  Value* resolve(std::string_view name) const;
  Node* findNode(NodeId id) const;  // in this graph only
  // Whether a node of this graph (not of its bodies) has this name: how passes pick fresh node names
  // without scanning the graph (a 100k-node chain made that quadratic).
  bool hasNodeNamed(std::string_view name) const;
  // The nodes of this graph that hold bodies (If/Loop/Scan), by id: what a walk of the scope tree looking
  // for names visits without touching every node.
  const std::map<NodeId, Node*>& bodyHolders() const { return bodyHolders_; }
  // Every value this graph defines, in a stable order: inputs, initializers, then node outputs.
  std::vector<Value*> definedValues() const;

 private:
  friend class Rewriter;
  Model* model_;
  Graph* parent_;
  Node* owner_;
  std::string name_;
  std::string docString_;
  std::string unknownFields_;
  FieldPresence presence_;
  NodeList nodes_;
  std::vector<std::unique_ptr<Value>> ownedValues_;  // inputs, initializers and undefined placeholders
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Value*> initializers_;
  std::vector<Value*> sparseInitializers_;
  std::vector<Value*> valueInfo_;
  std::unordered_map<std::string_view, Value*> byName_;  // keys view the values' own names
  std::unordered_map<NodeId, Node*> byId_;
  std::unordered_map<std::string, size_t> nodeNameCounts_;  // node names are not unique in ONNX
  std::map<NodeId, Node*> bodyHolders_;
};

}  // namespace onyx
