// Rewriter::copyModel: the copy is built through the rewriter's own edits (so use lists, name tables and
// body links are set up exactly as for any edit), then its nodes take the ids of their originals.
#include <algorithm>
#include <unordered_map>

#include "ir/rewriter.h"

namespace onyx {
namespace {

class ModelCopier {
 public:
  explicit ModelCopier(Model& target) : target_(target), rewriter_(target) {}

  // Every copied node with the id of the node it copies.
  std::vector<std::pair<Node*, NodeId>> copiedNodes;
  std::vector<Graph*> copiedGraphs;

  void copyGraph(const Graph& from, Graph& to) {
    graphs_[&from] = &to;
    copiedGraphs.push_back(&to);
    rewriter_.setGraphMetadata(to, from.name(), from.docString(), from.unknownFields(), from.presence());
    for (const Value* input : from.inputs()) {
      if (input->isInitializer() || input->sparseInitializer()) continue;  // copied with the initializers
      Value* copy = rewriter_.addUndefinedValue(to, input->name());
      rewriter_.setType(copy, input->type());
      values_[input] = copy;
    }
    for (const Value* initializer : from.initializers()) {
      Value* copy = rewriter_.addInitializer(to, initializer->name(), *initializer->initializer());
      if (copy->type() != initializer->type()) rewriter_.setType(copy, initializer->type());
      values_[initializer] = copy;
    }
    for (const Value* sparse : from.sparseInitializers()) {
      Value* copy = rewriter_.addSparseInitializer(to, sparse->name(), *sparse->sparseInitializer());
      if (copy->type() != sparse->type()) rewriter_.setType(copy, sparse->type());
      values_[sparse] = copy;
    }
    rewriter_.setGraphInputs(to, mapAll(from.inputs()));

    // Nodes first without inputs and bodies, so inputs may name values defined later in the stored order.
    std::vector<std::pair<const Node*, Node*>> nodes;
    for (const Node* node : from.nodes()) nodes.emplace_back(node, copyNodeShell(*node, to));
    for (auto [original, copy] : nodes) rewriter_.setInputs(copy, mapAll(original->inputs()));
    for (auto [original, copy] : nodes) copyBodies(*original, copy, to);

    for (const Value* listed : from.valueInfo()) {
      rewriter_.setValueInfo(map(listed), true, listed->docString(), listed->unknownFields());
      if (listed->listedType()) rewriter_.setListedType(map(listed), listed->listedType());
    }
    for (const Value* value : from.definedValues())
      if (!value->hasValueInfo() && (!value->docString().empty() || !value->unknownFields().empty()))
        rewriter_.setValueInfo(map(value), false, value->docString(), value->unknownFields());
    rewriter_.setGraphOutputs(to, mapAll(from.outputs()));
  }

 private:
  Node* copyNodeShell(const Node& node, Graph& to) {
    Rewriter::NodeSpec spec{.opType = node.opType(),
                            .domain = node.domain(),
                            .name = node.name(),
                            .inputs = {},
                            .outputNames = {},
                            .attributes = {},
                            .overload = node.overload(),
                            .docString = node.docString(),
                            .unknownFields = node.unknownFields(),
                            .modulePath = node.modulePath(),
                            .presence = node.presence()};
    for (const Value* output : node.outputs()) spec.outputNames.push_back(output ? output->name() : "");
    for (const Attribute& attribute : node.attributes()) {
      // Bodies are copied once every node of this graph exists; an empty holder keeps the attribute's place.
      if (attribute.kind() == Attribute::Kind::Graph)
        spec.attributes.push_back(Attribute::ofGraph(attribute.name(), nullptr));
      else if (attribute.kind() == Attribute::Kind::Graphs)
        spec.attributes.emplace_back(attribute.name(), Attribute::Kind::Graphs,
                                     std::vector<Attribute::GraphPtr>{});
      else
        spec.attributes.push_back(attribute);
    }
    Node* copy = rewriter_.addNode(to, std::move(spec));
    copiedNodes.emplace_back(copy, node.id());
    for (size_t i = 0; i < node.outputCount(); ++i) {
      const Value* output = node.output(i);
      if (!output) continue;
      values_[output] = copy->output(i);
      rewriter_.setType(copy->output(i), output->type());
    }
    return copy;
  }

  void copyBodies(const Node& node, Node* copy, Graph& to) {
    for (const Attribute& attribute : node.attributes()) {
      auto copyBody = [&](const Graph& body) {
        auto fresh = std::make_shared<Graph>(&target_, &to, copy);
        copyGraph(body, *fresh);
        return fresh;
      };
      Attribute replaced;
      if (const Graph* body = attribute.getGraph()) {
        replaced = Attribute::ofGraph(attribute.name(), copyBody(*body));
      } else if (const auto* bodies = attribute.getGraphs(); bodies && !bodies->empty()) {
        std::vector<Attribute::GraphPtr> copies;
        for (const auto& body : *bodies) copies.push_back(copyBody(*body));
        replaced = Attribute(attribute.name(), Attribute::Kind::Graphs, std::move(copies));
      } else {
        continue;
      }
      replaced.setDocString(attribute.docString());
      replaced.setUnknownFields(attribute.unknownFields());
      replaced.setPresence(attribute.presence());
      rewriter_.setAttribute(copy, std::move(replaced));
    }
  }

  // A value the original left undefined (a dangling input) gets an undefined value of the same name.
  Value* map(const Value* value) {
    if (!value) return nullptr;
    auto it = values_.find(value);
    if (it != values_.end()) return it->second;
    Value* copy = rewriter_.addUndefinedValue(*graphs_.at(value->graph()), value->name());
    rewriter_.setType(copy, value->type());
    values_[value] = copy;
    return copy;
  }
  std::vector<Value*> mapAll(const std::vector<Value*>& values) {
    std::vector<Value*> result;
    result.reserve(values.size());
    for (const Value* value : values) result.push_back(map(value));
    return result;
  }

  Model& target_;
  Rewriter rewriter_;
  std::unordered_map<const Value*, Value*> values_;
  std::unordered_map<const Graph*, Graph*> graphs_;
};

}  // namespace

std::unique_ptr<Model> Rewriter::copyModel(const Model& source) {
  auto target = std::make_unique<Model>();
  target->irVersion = source.irVersion;
  target->opsetImports = source.opsetImports;
  target->producerName = source.producerName;
  target->producerVersion = source.producerVersion;
  target->domain = source.domain;
  target->modelVersion = source.modelVersion;
  target->docString = source.docString;
  target->metadata = source.metadata;
  target->unknownFields = source.unknownFields;
  target->trainingInfo = source.trainingInfo;
  target->trainingInfoEntries = source.trainingInfoEntries;
  target->presence = source.presence;
  target->path = source.path;

  ModelCopier copier(*target);
  copier.copyGraph(source.graph(), target->graph());
  for (const auto& function : source.functions) {
    auto copy = std::make_shared<Function>(*function);
    copy->body = std::make_shared<Graph>(target.get(), nullptr, nullptr);
    copier.copyGraph(*function->body, *copy->body);
    target->functions.push_back(std::move(copy));
  }

  NodeId highest = kNoNode;
  for (auto [node, id] : copier.copiedNodes) {
    node->id_ = id;
    highest = std::max(highest, id);
  }
  for (Graph* graph : copier.copiedGraphs) {
    graph->byId_.clear();
    for (Node* node : graph->nodes()) graph->byId_[node->id_] = node;
  }
  // New nodes of the copy are numbered after every id it holds: the copy allocated one id per node so far.
  for (NodeId next = copier.copiedNodes.size() + 1; next <= highest; ++next) target->allocateNodeId();
  return target;
}

}  // namespace onyx
