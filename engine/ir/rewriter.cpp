#include "ir/rewriter.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <stdexcept>

namespace onyx {

// Use-list and name-table bookkeeping shared by the edits. A node's body (If/Loop/Scan subgraphs) is
// linked while the node is in a graph: its uses of outer values appear in their use lists.
struct Rewriter::Impl {
  static void addUse(Value* value, Use use) {
    if (value) value->uses_.push_back(use);
  }
  static void removeUse(Value* value, Use use) {
    if (!value) return;
    auto it = std::find(value->uses_.begin(), value->uses_.end(), use);
    assert(it != value->uses_.end());
    if (it != value->uses_.end()) value->uses_.erase(it);
  }
  static void linkInputs(Node* node) {
    for (size_t i = 0; i < node->inputs_.size(); ++i) addUse(node->inputs_[i], Use{node, nullptr, int(i)});
  }
  static void unlinkInputs(Node* node) {
    for (size_t i = 0; i < node->inputs_.size(); ++i) removeUse(node->inputs_[i], Use{node, nullptr, int(i)});
  }
  static void linkBody(Graph* graph) {
    for (Node* inner : graph->nodes()) linkTree(inner);
    for (size_t i = 0; i < graph->outputs_.size(); ++i) addUse(graph->outputs_[i], Use{nullptr, graph, int(i)});
  }
  static void unlinkBody(Graph* graph) {
    for (Node* inner : graph->nodes()) unlinkTree(inner);
    for (size_t i = 0; i < graph->outputs_.size(); ++i)
      removeUse(graph->outputs_[i], Use{nullptr, graph, int(i)});
  }
  static void linkTree(Node* node) {
    linkInputs(node);
    for (Graph* body : node->subgraphs()) linkBody(body);
  }
  static void unlinkTree(Node* node) {
    unlinkInputs(node);
    for (Graph* body : node->subgraphs()) unlinkBody(body);
  }
  static void registerName(Graph& graph, Value* value) {
    if (value && !value->name_.empty()) graph.byName_.try_emplace(value->name_, value);
  }
  static void unregisterName(Graph& graph, Value* value) {
    if (!value || value->name_.empty()) return;
    auto it = graph.byName_.find(value->name_);
    if (it != graph.byName_.end() && it->second == value) graph.byName_.erase(it);
  }
  static bool inGraph(const Node* node) {
    return node->graph_ && node->graph_->findNode(node->id_) == node;
  }
  static void countNodeName(Graph& graph, const std::string& name, bool adding) {
    if (adding) {
      ++graph.nodeNameCounts_[name];
      return;
    }
    auto it = graph.nodeNameCounts_.find(name);
    if (it != graph.nodeNameCounts_.end() && --it->second == 0) graph.nodeNameCounts_.erase(it);
  }
  // Keeps Graph::bodyHolders_ in step with the node's attributes (after adding, or changing an attribute).
  static void noteBodies(Node* node) {
    if (!inGraph(node)) return;
    if (node->subgraphs().empty())
      node->graph_->bodyHolders_.erase(node->id_);
    else
      node->graph_->bodyHolders_[node->id_] = node;
  }
  static void insertNode(Graph& graph, std::unique_ptr<Node> owned, Node* before) {
    Node* node = owned.get();
    auto at = before ? before->position_ : graph.nodes_.end();
    node->position_ = graph.nodes_.insert(at, std::move(owned));
    graph.byId_[node->id_] = node;
    countNodeName(graph, node->name_, true);
    noteBodies(node);
    for (auto& output : node->outputs_) registerName(graph, output.get());
  }
  static std::unique_ptr<Node> extractNode(Node* node) {
    Graph& graph = *node->graph_;
    for (auto& output : node->outputs_) unregisterName(graph, output.get());
    graph.byId_.erase(node->id_);
    countNodeName(graph, node->name_, false);
    graph.bodyHolders_.erase(node->id_);
    std::unique_ptr<Node> owned = std::move(*node->position_);
    graph.nodes_.erase(node->position_);
    return owned;
  }
  static Node* nextOf(Node* node) {
    auto next = std::next(node->position_);
    return next == node->graph_->nodes_.end() ? nullptr : next->get();
  }
  static void setGraphOutputs(Graph& graph, const std::vector<Value*>& outputs) {
    for (size_t i = 0; i < graph.outputs_.size(); ++i) removeUse(graph.outputs_[i], Use{nullptr, &graph, int(i)});
    graph.outputs_ = outputs;
    for (size_t i = 0; i < graph.outputs_.size(); ++i) addUse(graph.outputs_[i], Use{nullptr, &graph, int(i)});
  }
  static void rename(Value* value, const std::string& name) {
    Graph& graph = *value->graph_;
    unregisterName(graph, value);
    value->name_ = name;
    registerName(graph, value);
  }
  static Value* newOwnedValue(Graph& graph, std::string name) {
    auto value = std::make_unique<Value>();
    value->name_ = std::move(name);
    value->graph_ = &graph;
    Value* raw = value.get();
    graph.ownedValues_.push_back(std::move(value));
    return raw;
  }
};

// ---- Rewriter ------------------------------------------------------------------------------------

void Rewriter::record(ChangeLog::Edit edit) {
  edit.apply(false);
  if (Transaction* transaction = model_->activeTransaction()) transaction->log_->edits_.push_back(std::move(edit));
}

void Rewriter::emit(ChangeEvent::Kind kind, const Graph* graph, NodeId node, std::string name, bool undoing) {
  model_->emit(ChangeEvent{kind, graph, node, std::move(name), undoing});
}

Node* Rewriter::addNode(Graph& graph, NodeSpec spec, Node* before) {
  auto owned = std::make_unique<Node>();
  Node* node = owned.get();
  node->id_ = model_->allocateNodeId();
  node->opType_ = std::move(spec.opType);
  node->domain_ = std::move(spec.domain);
  node->name_ = std::move(spec.name);
  node->overload_ = std::move(spec.overload);
  node->docString_ = std::move(spec.docString);
  node->unknownFields_ = std::move(spec.unknownFields);
  node->modulePath_ = std::move(spec.modulePath);
  node->presence_ = spec.presence;
  node->graph_ = &graph;
  node->inputs_ = std::move(spec.inputs);
  node->attributes_ = std::move(spec.attributes);
  for (size_t i = 0; i < spec.outputNames.size(); ++i) {
    if (spec.outputNames[i].empty()) {
      node->outputs_.emplace_back();
      continue;
    }
    auto value = std::make_unique<Value>();
    value->name_ = std::move(spec.outputNames[i]);
    value->graph_ = &graph;
    value->producer_ = node;
    value->producerOutput_ = int(i);
    node->outputs_.push_back(std::move(value));
  }
  for (Graph* body : node->subgraphs()) {
    body->owner_ = node;
    body->parent_ = &graph;
  }
  auto holder = std::make_shared<std::unique_ptr<Node>>(std::move(owned));
  Model* model = model_;
  Graph* target = &graph;
  record({[=](bool replaying) {
            Impl::insertNode(*target, std::move(*holder), before);
            // A new node's bodies were linked as they were built; a replayed one was unlinked on undo.
            if (replaying)
              Impl::linkTree(node);
            else
              Impl::linkInputs(node);
            model->emit({ChangeEvent::Kind::NodeAdded, target, node->id_, node->name_, false});
          },
          [=] {
            Impl::unlinkTree(node);
            *holder = Impl::extractNode(node);
            model->emit({ChangeEvent::Kind::NodeRemoved, target, node->id_, node->name_, true});
          }});
  trackAdded(node);
  return node;
}

void Rewriter::removeNode(Node* node) {
  for (const auto& output : node->outputs_)
    if (output && !output->uses_.empty())
      throw std::logic_error("removeNode: output '" + output->name_ + "' of " + node->describe() + " is still used");
  trackRemoved(node);
  Graph* graph = node->graph_;
  auto holder = std::make_shared<std::unique_ptr<Node>>();
  auto next = std::make_shared<Node*>(nullptr);
  Model* model = model_;
  record({[=](bool) {
            *next = Impl::nextOf(node);
            Impl::unlinkTree(node);
            *holder = Impl::extractNode(node);
            model->emit({ChangeEvent::Kind::NodeRemoved, graph, node->id_, node->name_, false});
          },
          [=] {
            Impl::insertNode(*graph, std::move(*holder), *next);
            Impl::linkTree(node);
            model->emit({ChangeEvent::Kind::NodeAdded, graph, node->id_, node->name_, true});
          }});
}

void Rewriter::moveBefore(Node* node, Node* before) {
  Graph* graph = node->graph_;
  auto next = std::make_shared<Node*>(nullptr);
  auto move = [graph, node](Node* target) {
    auto owned = std::move(*node->position_);
    graph->nodes_.erase(node->position_);
    node->position_ = graph->nodes_.insert(target ? target->position_ : graph->nodes_.end(), std::move(owned));
  };
  record({[=](bool) {
            *next = Impl::nextOf(node);
            move(before);
          },
          [=] { move(*next); }});
}

void Rewriter::setInputs(Node* node, std::vector<Value*> inputs) {
  trackModified(node);
  auto old = std::make_shared<std::vector<Value*>>(node->inputs_);
  auto fresh = std::make_shared<std::vector<Value*>>(std::move(inputs));
  Model* model = model_;
  auto assign = [node, model](const std::vector<Value*>& values, bool undoing) {
    Impl::unlinkInputs(node);
    node->inputs_ = values;
    Impl::linkInputs(node);
    model->emit({ChangeEvent::Kind::InputsChanged, node->graph_, node->id_, node->name_, undoing});
  };
  record({[=](bool) { assign(*fresh, false); }, [=] { assign(*old, true); }});
}

void Rewriter::setInput(Node* node, size_t index, Value* value) {
  std::vector<Value*> inputs = node->inputs_;
  if (index >= inputs.size()) inputs.resize(index + 1, nullptr);
  inputs[index] = value;
  setInputs(node, std::move(inputs));
}

void Rewriter::replaceAllUsesWith(Value* from, Value* to) {
  if (from == to) return;
  trackRewiring(from, to, true);
  std::vector<Use> uses = from->uses_;
  for (const Use& use : uses) {
    if (use.node) {
      setInput(use.node, size_t(use.index), to);
    } else {
      std::vector<Value*> outputs = use.graphOutput->outputs_;
      outputs[size_t(use.index)] = to;
      setGraphOutputs(*use.graphOutput, std::move(outputs));
    }
  }
  trackRewiring(from, to, false);
}

void Rewriter::setAttribute(Node* node, Attribute attribute) {
  trackModified(node);
  auto find = [node](const std::string& name) {
    return std::find_if(node->attributes_.begin(), node->attributes_.end(),
                        [&](const Attribute& a) { return a.name() == name; });
  };
  auto it = find(attribute.name());
  auto old = std::make_shared<std::optional<Attribute>>();
  if (it != node->attributes_.end()) *old = *it;
  auto position = std::make_shared<size_t>(size_t(it - node->attributes_.begin()));
  auto fresh = std::make_shared<Attribute>(std::move(attribute));
  for (Graph* body : fresh->subgraphs()) {
    body->owner_ = node;
    body->parent_ = node->graph_;
  }
  Model* model = model_;
  auto place = [node, position](const Attribute& value) {
    if (*position < node->attributes_.size())
      node->attributes_[*position] = value;
    else
      node->attributes_.push_back(value);
  };
  record({[=](bool replaying) {
            if (*old)
              for (Graph* body : (*old)->subgraphs()) Impl::unlinkBody(body);
            if (replaying)
              for (Graph* body : fresh->subgraphs()) Impl::linkBody(body);
            place(*fresh);
            Impl::noteBodies(node);
            model->emit({ChangeEvent::Kind::AttributeChanged, node->graph_, node->id_, fresh->name(), false});
          },
          [=] {
            for (Graph* body : fresh->subgraphs()) Impl::unlinkBody(body);
            if (*old) {
              for (Graph* body : (*old)->subgraphs()) Impl::linkBody(body);
              node->attributes_[*position] = **old;
            } else {
              node->attributes_.erase(node->attributes_.begin() + long(*position));
            }
            Impl::noteBodies(node);
            model->emit({ChangeEvent::Kind::AttributeChanged, node->graph_, node->id_, fresh->name(), true});
          }});
}

void Rewriter::removeAttribute(Node* node, const std::string& name) {
  auto it = std::find_if(node->attributes_.begin(), node->attributes_.end(),
                         [&](const Attribute& a) { return a.name() == name; });
  if (it == node->attributes_.end()) return;
  trackModified(node);
  auto position = size_t(it - node->attributes_.begin());
  auto old = std::make_shared<Attribute>(*it);
  Model* model = model_;
  record({[=](bool) {
            for (Graph* body : old->subgraphs()) Impl::unlinkBody(body);
            node->attributes_.erase(node->attributes_.begin() + long(position));
            Impl::noteBodies(node);
            model->emit({ChangeEvent::Kind::AttributeChanged, node->graph_, node->id_, name, false});
          },
          [=] {
            for (Graph* body : old->subgraphs()) Impl::linkBody(body);
            node->attributes_.insert(node->attributes_.begin() + long(position), *old);
            Impl::noteBodies(node);
            model->emit({ChangeEvent::Kind::AttributeChanged, node->graph_, node->id_, name, true});
          }});
}

void Rewriter::renameNode(Node* node, std::string name) {
  auto old = node->name_;
  Model* model = model_;
  auto assign = [node](const std::string& from, const std::string& to) {
    if (Impl::inGraph(node)) {
      Impl::countNodeName(*node->graph_, from, false);
      Impl::countNodeName(*node->graph_, to, true);
    }
    node->name_ = to;
  };
  record({[=](bool) {
            assign(old, name);
            model->emit({ChangeEvent::Kind::NodeRenamed, node->graph_, node->id_, old, false});
          },
          [=] {
            assign(name, old);
            model->emit({ChangeEvent::Kind::NodeRenamed, node->graph_, node->id_, name, true});
          }});
}

void Rewriter::renameValue(Value* value, std::string name) {
  auto old = value->name_;
  Model* model = model_;
  NodeId producer = value->producer_ ? value->producer_->id_ : kNoNode;
  record({[=](bool) {
            Impl::rename(value, name);
            model->emit({ChangeEvent::Kind::ValueRenamed, value->graph_, producer, old, false});
          },
          [=] {
            Impl::rename(value, old);
            model->emit({ChangeEvent::Kind::ValueRenamed, value->graph_, producer, name, true});
          }});
}

void Rewriter::setType(Value* value, Type type) {
  // A new type is the type of every declaration of the value: a differing value_info type goes with it.
  auto old = std::make_shared<std::pair<Type, std::optional<Type>>>(value->type_, value->listedType());
  auto fresh = std::make_shared<Type>(std::move(type));
  Model* model = model_;
  NodeId producer = value->producer_ ? value->producer_->id_ : kNoNode;
  auto assign = [=](const Type& t, const std::optional<Type>& listed, bool undoing) {
    value->type_ = t;
    value->setListedType(listed);
    model->emit({ChangeEvent::Kind::ValueTypeChanged, value->graph_, producer, value->name_, undoing});
  };
  record({[=](bool) { assign(*fresh, std::nullopt, false); }, [=] { assign(old->first, old->second, true); }});
}

void Rewriter::setListedType(Value* value, std::optional<Type> type) {
  auto old = std::make_shared<std::optional<Type>>(value->listedType());
  auto fresh = std::make_shared<std::optional<Type>>(std::move(type));
  record({[=](bool) { value->setListedType(*fresh); }, [=] { value->setListedType(*old); }});
}

void Rewriter::setValueInfo(Value* value, bool listed, std::string docString, std::string unknownFields) {
  struct State {
    bool listed;
    std::string doc, unknown;
  };
  auto old = std::make_shared<State>(State{value->hasValueInfo_, value->docString(), value->unknownFields()});
  auto fresh = std::make_shared<State>(State{listed, std::move(docString), std::move(unknownFields)});
  auto assign = [value](const State& state) {
    Graph& graph = *value->graph_;
    if (state.listed != value->hasValueInfo_) {
      if (state.listed)
        graph.valueInfo_.push_back(value);
      else
        std::erase(graph.valueInfo_, value);
    }
    value->hasValueInfo_ = state.listed;
    Value::Listing listing = value->listing();
    listing.docString = state.doc;
    listing.unknownFields = state.unknown;
    value->setListing(std::move(listing));
  };
  record({[=](bool) { assign(*fresh); }, [=] { assign(*old); }});
}

Value* Rewriter::addGraphInput(Graph& graph, std::string name, Type type) {
  Value* value = addUndefinedValue(graph, std::move(name));
  setType(value, std::move(type));
  std::vector<Value*> inputs = graph.inputs_;
  inputs.push_back(value);
  setGraphInputs(graph, std::move(inputs));
  return value;
}

void Rewriter::setGraphInputs(Graph& graph, std::vector<Value*> inputs) {
  auto old = std::make_shared<std::vector<Value*>>(graph.inputs_);
  auto fresh = std::make_shared<std::vector<Value*>>(std::move(inputs));
  Model* model = model_;
  auto assign = [&graph, model](const std::vector<Value*>& values, bool undoing) {
    for (Value* value : graph.inputs_) value->isGraphInput_ = false;
    graph.inputs_ = values;
    for (Value* value : graph.inputs_) value->isGraphInput_ = true;
    model->emit({ChangeEvent::Kind::GraphInputsChanged, &graph, kNoNode, {}, undoing});
  };
  record({[=](bool) { assign(*fresh, false); }, [=] { assign(*old, true); }});
}

void Rewriter::setGraphOutputs(Graph& graph, std::vector<Value*> outputs) {
  auto old = std::make_shared<std::vector<Value*>>(graph.outputs_);
  auto fresh = std::make_shared<std::vector<Value*>>(std::move(outputs));
  Model* model = model_;
  auto assign = [&graph, model](const std::vector<Value*>& values, bool undoing) {
    Impl::setGraphOutputs(graph, values);
    model->emit({ChangeEvent::Kind::GraphOutputsChanged, &graph, kNoNode, {}, undoing});
  };
  record({[=](bool) { assign(*fresh, false); }, [=] { assign(*old, true); }});
}

Value* Rewriter::addUndefinedValue(Graph& graph, std::string name) {
  auto holder = std::make_shared<std::unique_ptr<Value>>(std::make_unique<Value>());
  Value* value = holder->get();
  value->name_ = std::move(name);
  value->graph_ = &graph;
  record({[=, &graph](bool) {
            graph.ownedValues_.push_back(std::move(*holder));
            Impl::registerName(graph, value);
          },
          [=, &graph] {
            Impl::unregisterName(graph, value);
            auto it = std::find_if(graph.ownedValues_.begin(), graph.ownedValues_.end(),
                                   [value](const auto& owned) { return owned.get() == value; });
            *holder = std::move(*it);
            graph.ownedValues_.erase(it);
          }});
  return value;
}

Value* Rewriter::addInitializer(Graph& graph, std::string name, Tensor tensor) {
  Value* value = addUndefinedValue(graph, std::move(name));
  std::vector<int64_t> dims = tensor.dims();
  Shape shape(dims.begin(), dims.end());
  setType(value, Type::tensor(tensor.dtype(), std::move(shape)));
  setInitializer(value, std::move(tensor));
  return value;
}

void Rewriter::setInitializer(Value* value, Tensor tensor) {
  auto old = std::make_shared<std::optional<Tensor>>();
  if (value->initializer_) *old = *value->initializer_;
  auto fresh = std::make_shared<Tensor>(std::move(tensor));
  Model* model = model_;
  auto assign = [value, model](const std::optional<Tensor>& t, bool undoing) {
    Graph& graph = *value->graph_;
    bool was = value->initializer_ != nullptr;
    value->initializer_ = t ? std::make_unique<Tensor>(*t) : nullptr;
    if (was && !t) std::erase(graph.initializers_, value);
    if (!was && t) graph.initializers_.push_back(value);
    model->emit({ChangeEvent::Kind::InitializerChanged, &graph, kNoNode, value->name_, undoing});
  };
  record({[=](bool) { assign(*fresh, false); }, [=] { assign(*old, true); }});
}

Value* Rewriter::addSparseInitializer(Graph& graph, std::string name, SparseTensor tensor) {
  Value* value = addUndefinedValue(graph, std::move(name));
  auto fresh = std::make_shared<const SparseTensor>(std::move(tensor));
  Shape shape(fresh->dims.begin(), fresh->dims.end());
  setType(value, Type::sparseTensor(fresh->values.dtype(), std::move(shape)));
  record({[=, &graph](bool) {
            value->sparseInitializer_ = fresh;
            graph.sparseInitializers_.push_back(value);
          },
          [=, &graph] {
            value->sparseInitializer_.reset();
            std::erase(graph.sparseInitializers_, value);
          }});
  return value;
}

void Rewriter::removeValue(Value* value) {
  if (!value->uses_.empty())
    throw std::logic_error("removeValue: '" + value->name_ + "' is still used");
  if (value->producer_) throw std::logic_error("removeValue: '" + value->name_ + "' is a node output");
  Graph& graph = *value->graph_;
  if (value->isGraphInput_) {
    std::vector<Value*> inputs = graph.inputs_;
    std::erase(inputs, value);
    setGraphInputs(graph, std::move(inputs));
  }
  if (value->initializer_) {
    auto old = std::make_shared<Tensor>(*value->initializer_);
    auto position = std::make_shared<size_t>(0);
    Model* model = model_;
    record({[=, &graph](bool) {
              auto it = std::find(graph.initializers_.begin(), graph.initializers_.end(), value);
              *position = size_t(it - graph.initializers_.begin());
              graph.initializers_.erase(it);
              value->initializer_.reset();
              model->emit({ChangeEvent::Kind::InitializerChanged, &graph, kNoNode, value->name_, false});
            },
            [=, &graph] {
              graph.initializers_.insert(graph.initializers_.begin() + long(*position), value);
              value->initializer_ = std::make_unique<Tensor>(*old);
              model->emit({ChangeEvent::Kind::InitializerChanged, &graph, kNoNode, value->name_, true});
            }});
  }
  if (value->hasValueInfo_) setValueInfo(value, false);
  auto holder = std::make_shared<std::unique_ptr<Value>>();
  auto position = std::make_shared<size_t>(0);
  record({[=, &graph](bool) {
            Impl::unregisterName(graph, value);
            auto it = std::find_if(graph.ownedValues_.begin(), graph.ownedValues_.end(),
                                   [value](const auto& owned) { return owned.get() == value; });
            *position = size_t(it - graph.ownedValues_.begin());
            *holder = std::move(*it);
            graph.ownedValues_.erase(it);
          },
          [=, &graph] {
            graph.ownedValues_.insert(graph.ownedValues_.begin() + long(*position), std::move(*holder));
            Impl::registerName(graph, value);
          }});
}

void Rewriter::setGraphMetadata(Graph& graph, std::string name, std::string docString, std::string unknownFields,
                                FieldPresence presence) {
  struct State {
    std::string name, doc, unknown;
    FieldPresence presence;
  };
  auto old = std::make_shared<State>(State{graph.name_, graph.docString_, graph.unknownFields_, graph.presence_});
  auto fresh = std::make_shared<State>(
      State{std::move(name), std::move(docString), std::move(unknownFields), presence});
  auto assign = [&graph](const State& s) {
    graph.name_ = s.name;
    graph.docString_ = s.doc;
    graph.unknownFields_ = s.unknown;
    graph.presence_ = s.presence;
  };
  record({[=](bool) { assign(*fresh); }, [=] { assign(*old); }});
}

}  // namespace onyx
