#pragma once
// The one way to change a model. Every edit keeps use lists consistent, emits a ChangeEvent and, inside a
// Transaction, is recorded so the whole transaction can be reverted, or undone and redone later.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/model.h"
#include "ir/node_origin.h"

namespace onyx {

// A committed sequence of edits. undo() and redo() must alternate, starting with undo(); the model must be
// in the state the log left it in (the undo stack guarantees that).
class ChangeLog {
 public:
  const std::string& label() const { return label_; }
  size_t size() const { return edits_.size(); }
  bool empty() const { return edits_.empty(); }
  bool isUndone() const { return undone_; }
  void undo();
  void redo();
  // Cuts an applied log into consecutive logs, each applied, that undo and redo on their own (later ones
  // first, as an undo stack does): part i holds the edits from ends[i-1] (0 for the first) up to ends[i].
  // `ends` ascend and stay within size(); edits after the last end join the last part. This log is left
  // empty. Step Into (passes/rewrite_steps.h) cuts a pass's log at the end of each rewrite.
  std::vector<std::shared_ptr<ChangeLog>> split(const std::vector<size_t>& ends);

 private:
  friend class Rewriter;
  friend class Transaction;
  struct Edit {
    std::function<void(bool replaying)> apply;
    std::function<void()> unapply;
  };
  Model* model_ = nullptr;
  std::string label_;
  std::vector<Edit> edits_;
  bool undone_ = false;
};

class Transaction {
 public:
  Transaction(Model& model, std::string label);
  ~Transaction();  // reverts what was neither committed nor reverted: a failed pass leaves no half edit
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  std::shared_ptr<ChangeLog> commit();
  void revert();
  size_t editCount() const { return log_ ? log_->size() : 0; }

 private:
  friend class Rewriter;
  Model* model_;
  std::shared_ptr<ChangeLog> log_;
};

class Rewriter {
 public:
  explicit Rewriter(Model& model) : model_(&model) {}

  struct NodeSpec {
    std::string opType;
    std::string domain;
    std::string name;
    std::vector<Value*> inputs;             // null for an absent optional input
    std::vector<std::string> outputNames;   // "" for an absent optional output
    std::vector<Attribute> attributes;
    std::string overload;
    std::string docString;
    std::string unknownFields;
    std::optional<std::string> modulePath;  // see Node::modulePath
    FieldPresence presence;                 // see Node::presence
  };
  // Adds a node before `before`, or at the end; its outputs are new values named as in the spec.
  Node* addNode(Graph& graph, NodeSpec spec, Node* before = nullptr);
  // Removes a node whose outputs have no uses.
  void removeNode(Node* node);
  void moveBefore(Node* node, Node* before);  // `before` null: to the end
  void setInput(Node* node, size_t index, Value* value);
  void setInputs(Node* node, std::vector<Value*> inputs);
  // Every use of `from` (node inputs and graph outputs) now uses `to`.
  void replaceAllUsesWith(Value* from, Value* to);
  void setAttribute(Node* node, Attribute attribute);
  void removeAttribute(Node* node, const std::string& name);
  void renameNode(Node* node, std::string name);
  // Replaces the node's unknown NodeProto fields, where its metadata_props live (provenance writes its
  // "onyx.origin" entry so); emits AttributeChanged named "metadata_props".
  void setUnknownFields(Node* node, std::string unknownFields);
  void renameValue(Value* value, std::string name);
  void setType(Value* value, Type type);
  void setValueInfo(Value* value, bool listed, std::string docString = {}, std::string unknownFields = {});
  // The type of the value's value_info entry where it differs from its type (see Value::listedType).
  void setListedType(Value* value, std::optional<Type> type);

  Value* addGraphInput(Graph& graph, std::string name, Type type);
  void setGraphInputs(Graph& graph, std::vector<Value*> inputs);
  void setGraphOutputs(Graph& graph, std::vector<Value*> outputs);
  // A new value holding a constant; `alsoInput` for models that list initializers as inputs too.
  Value* addInitializer(Graph& graph, std::string name, Tensor tensor);
  void setInitializer(Value* value, Tensor tensor);
  Value* addSparseInitializer(Graph& graph, std::string name, SparseTensor tensor);
  // A value nothing defines yet (a dangling input as loaded); verify() reports it while undefined.
  Value* addUndefinedValue(Graph& graph, std::string name);
  // Removes an unused value the graph owns (input, initializer or undefined placeholder).
  void removeValue(Value* value);
  // Removes many such values as one edit, in one sweep of each graph's lists: what dead-code-elimination and
  // constant-deduplication use, since removing a million unused initializers one by one was quadratic.
  // Defined in rewriter_batch.cpp.
  void removeValues(const std::vector<Value*>& values);
  void setGraphMetadata(Graph& graph, std::string name, std::string docString, std::string unknownFields,
                        FieldPresence presence = {});

  // Model-local functions. A new function's body is a Graph of this model (Graph(&model)), built with this
  // rewriter before or after it is added; removing keeps the body alive for undo.
  void addFunction(std::shared_ptr<Function> function);
  void removeFunction(const Function* function);
  // Imports `domain` at `version` (replacing an existing import of it); version 0 removes the import.
  void setOpsetImport(std::string domain, int64_t version);
  // A deep copy of `source` (graphs, bodies, functions, metadata; tensors share their bytes) whose nodes keep
  // their ids: the copy stays of the same lineage, so a diff against the original can match nodes by id.
  // Defined in model_copy.cpp.
  static std::unique_ptr<Model> copyModel(const Model& source);

  // One rewrite (the edits of one pattern match) lies between beginRewrite() and endRewrite(); the rewriter
  // notes the nodes the edits add, remove and modify, which provenance (passes/provenance.h) and bisection
  // report. Defined in rewrite_tracking.cpp.
  struct TouchedNode {
    NodeOrigin node;
    Node* live = nullptr;       // added and modified nodes; null for removed ones
    const Graph* graph = nullptr;
    std::string unknownFields;  // of a removed node, as it was (its metadata, origins included)
    // A modified node whose output took over the uses of a removed node's output (the Conv that a
    // BatchNormalization folded into): replaceAllUsesWith(removed output, its output).
    bool tookOver = false;
  };
  struct RewriteEdits {
    std::vector<TouchedNode> removed;   // not those the rewrite added and removed again
    std::vector<TouchedNode> added;     // still there
    std::vector<TouchedNode> modified;  // inputs or attributes changed in place (not just rewired)
  };
  void beginRewrite();
  RewriteEdits endRewrite();

 private:
  struct Tracker;  // what the open rewrite touched, in rewrite_tracking.cpp
  struct Impl;  // link bookkeeping shared by the edits, in rewriter.cpp
  void record(ChangeLog::Edit edit);
  void emit(ChangeEvent::Kind kind, const Graph* graph, NodeId node, std::string name, bool undoing = false);
  // Notes for the open rewrite, if any (rewrite_tracking.cpp).
  void trackAdded(Node* node);
  void trackRemoved(Node* node);
  void trackModified(Node* node);
  void trackRewiring(const Value* from, const Value* to, bool starting);
  Model* model_;
  std::shared_ptr<Tracker> tracker_;  // set between beginRewrite() and endRewrite()
};

}  // namespace onyx
