#include "diff/graph_diff.h"

#include <algorithm>
#include <optional>

#include "diff/content_hash.h"

namespace onyx::diff {

const char* changeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::OpsetChanged:
      return "opset-changed";
    case ChangeKind::GraphInputAdded:
      return "graph-input-added";
    case ChangeKind::GraphInputRemoved:
      return "graph-input-removed";
    case ChangeKind::GraphInputsReordered:
      return "graph-inputs-reordered";
    case ChangeKind::GraphOutputAdded:
      return "graph-output-added";
    case ChangeKind::GraphOutputRemoved:
      return "graph-output-removed";
    case ChangeKind::GraphOutputChanged:
      return "graph-output-changed";
    case ChangeKind::InitializerAdded:
      return "initializer-added";
    case ChangeKind::InitializerRemoved:
      return "initializer-removed";
    case ChangeKind::InitializerChanged:
      return "initializer-changed";
    case ChangeKind::NodeAdded:
      return "node-added";
    case ChangeKind::NodeRemoved:
      return "node-removed";
    case ChangeKind::NodeOpChanged:
      return "node-op-changed";
    case ChangeKind::NodeRenamed:
      return "node-renamed";
    case ChangeKind::NodeInputChanged:
      return "node-input-changed";
    case ChangeKind::NodeInputProducerChanged:
      return "node-input-producer-changed";
    case ChangeKind::NodeOutputChanged:
      return "node-output-changed";
    case ChangeKind::AttributeAdded:
      return "attribute-added";
    case ChangeKind::AttributeRemoved:
      return "attribute-removed";
    case ChangeKind::AttributeChanged:
      return "attribute-changed";
    case ChangeKind::ValueRenamed:
      return "value-renamed";
    case ChangeKind::ValueTypeChanged:
      return "value-type-changed";
    case ChangeKind::FunctionAdded:
      return "function-added";
    case ChangeKind::FunctionRemoved:
      return "function-removed";
    case ChangeKind::FunctionChanged:
      return "function-changed";
    case ChangeKind::NodesFused:
      return "nodes-fused";
    case ChangeKind::NodeSplit:
      return "node-split";
  }
  return "unknown";
}

bool isNodeChange(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::NodeOpChanged:
    case ChangeKind::NodeRenamed:
    case ChangeKind::NodeInputChanged:
    case ChangeKind::NodeInputProducerChanged:
    case ChangeKind::NodeOutputChanged:
    case ChangeKind::AttributeAdded:
    case ChangeKind::AttributeRemoved:
    case ChangeKind::AttributeChanged:
      return true;
    default:
      return false;
  }
}

NodeStatus ModelDiff::statusBefore(NodeId node) const {
  auto it = beforeStatus_.find(node);
  return it == beforeStatus_.end() ? NodeStatus::Unchanged : it->second;
}

NodeStatus ModelDiff::statusAfter(NodeId node) const {
  auto it = afterStatus_.find(node);
  return it == afterStatus_.end() ? NodeStatus::Unchanged : it->second;
}

namespace {

std::string quoted(const std::string& name) {
  return "'" + name + "'";
}
std::string nameOf(const Value* value) {
  return value ? value->name() : std::string();
}
std::string opText(const Node& node) {
  std::string op = node.domain().empty() || node.domain() == "ai.onnx" ? node.opType()
                                                                       : node.domain() + "::" + node.opType();
  return node.overload().empty() ? op : op + ":" + node.overload();
}
std::string joinScope(const std::string& scope, const std::string& inner) {
  return scope.empty() ? inner : scope + " > " + inner;
}
std::string producerText(const Value* value) {
  if (value->producer()) return value->producer()->describe();
  if (value->isInitializer()) return "initializer " + quoted(value->name());
  if (value->isGraphInput()) return "graph input " + quoted(value->name());
  return quoted(value->name());
}
std::string initializerText(const Value* value) {
  if (const Tensor* tensor = value->initializer())
    return tensorTypeText(*tensor) + " #" + hashToHex(tensorContentHash(*tensor));
  return value->type().toString() + " (sparse)";
}
std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

class Differ {
 public:
  Differ(MatchBy by, ModelDiff& out) : by_(by), out_(out) {}

  void diffOpsets(const Model& a, const Model& b) {
    auto versions = [](const Model& model) {
      std::vector<std::pair<std::string, int64_t>> list;
      for (const OpsetImport& opset : model.opsetImports)
        list.emplace_back(opset.domain.empty() ? "ai.onnx" : opset.domain, opset.version);
      return list;
    };
    auto listA = versions(a), listB = versions(b);
    auto find = [](const auto& list, const std::string& domain) {
      return std::find_if(list.begin(), list.end(), [&](const auto& entry) { return entry.first == domain; });
    };
    for (const auto& [domain, version] : listA) {
      auto it = find(listB, domain);
      if (it == listB.end() || it->second != version)
        add({.kind = ChangeKind::OpsetChanged,
             .subject = domain,
             .before = std::to_string(version),
             .after = it == listB.end() ? "" : std::to_string(it->second)});
    }
    for (const auto& [domain, version] : listB)
      if (find(listA, domain) == listA.end())
        add({.kind = ChangeKind::OpsetChanged, .subject = domain, .after = std::to_string(version)});
  }

  void diffGraphs(const Graph& a, const Graph& b, const std::string& scope) {
    GraphMatch match = matchGraphs(a, b, by_, anchors_);
    for (auto [before, after] : match.beforeToAfter) {
      out_.beforeToAfter[before->id()] = after->id();
      out_.afterToBefore[after->id()] = before->id();
    }
    diffGraphInputs(a, b, scope);
    diffGraphOutputs(a, b, scope);
    diffInitializers(a, b, scope);
    for (const Node* node : a.nodes())
      if (!match.beforeToAfter.count(node)) {
        add({.kind = ChangeKind::NodeRemoved,
             .scope = scope,
             .subject = node->describe(),
             .beforeNode = node->id()});
      }
    for (const Node* node : b.nodes())
      if (!match.afterToBefore.count(node)) {
        add({.kind = ChangeKind::NodeAdded,
             .scope = scope,
             .subject = node->describe(),
             .afterNode = node->id()});
      }
    for (const Node* node : b.nodes())
      if (auto it = match.afterToBefore.find(node); it != match.afterToBefore.end())
        diffNodes(*it->second, *node, scope);
    for (const Node* node : b.nodes())
      if (auto it = match.afterToBefore.find(node); it != match.afterToBefore.end())
        diffBodies(*it->second, *node, scope);
  }

  void diffFunctions(const Model& a, const Model& b) {
    auto key = [](const Function& f) {
      return f.domain + "." + f.name + (f.overload.empty() ? "" : ":" + f.overload);
    };
    auto find = [&](const Model& model, const std::string& wanted) -> const Function* {
      for (const auto& function : model.functions)
        if (key(*function) == wanted) return function.get();
      return nullptr;
    };
    for (const auto& function : a.functions)
      if (!find(b, key(*function))) add({.kind = ChangeKind::FunctionRemoved, .subject = key(*function)});
    for (const auto& function : b.functions) {
      const Function* old = find(a, key(*function));
      if (!old) {
        add({.kind = ChangeKind::FunctionAdded, .subject = key(*function)});
        continue;
      }
      size_t changesBefore = out_.changes.size();
      auto functionChange = [&](std::string item, std::string before, std::string after) {
        add({.kind = ChangeKind::FunctionChanged,
             .subject = key(*function),
             .item = std::move(item),
             .before = std::move(before),
             .after = std::move(after)});
      };
      if (old->attributeNames != function->attributeNames)
        functionChange("attributes", join(old->attributeNames), join(function->attributeNames));
      auto defaults = [](const Function& f) {
        std::vector<std::string> parts;
        for (const Attribute& attribute : f.attributeDefaults)
          parts.push_back(attribute.name() + "=" + attribute.valueToString());
        return parts;
      };
      if (defaults(*old) != defaults(*function))
        functionChange("attribute defaults", join(defaults(*old)), join(defaults(*function)));
      auto opsets = [](const Function& f) {
        std::vector<std::string> parts;
        for (const OpsetImport& opset : f.opsetImports)
          parts.push_back((opset.domain.empty() ? "ai.onnx" : opset.domain) + " " +
                          std::to_string(opset.version));
        return parts;
      };
      if (opsets(*old) != opsets(*function))
        functionChange("opset imports", join(opsets(*old)), join(opsets(*function)));
      diffGraphs(*old->body, *function->body, "function " + key(*function));
      if (out_.changes.size() != changesBefore) ++out_.summary.functionsChanged;
    }
  }

 private:
  void add(Change change) { out_.changes.push_back(std::move(change)); }

  const Value* mapped(const Value* value) const {
    if (!value) return nullptr;
    auto it = anchors_.beforeToAfter.find(value);
    return it == anchors_.beforeToAfter.end() ? nullptr : it->second;
  }

  void diffValue(const Value& a, const Value& b, const std::string& scope, NodeId beforeNode,
                 NodeId afterNode) {
    if (a.name() != b.name())
      add({.kind = ChangeKind::ValueRenamed,
           .scope = scope,
           .subject = quoted(a.name()),
           .before = a.name(),
           .after = b.name(),
           .beforeNode = beforeNode,
           .afterNode = afterNode});
    if (a.type() != b.type())
      add({.kind = ChangeKind::ValueTypeChanged,
           .scope = scope,
           .subject = quoted(b.name()),
           .before = a.type().toString(),
           .after = b.type().toString(),
           .beforeNode = beforeNode,
           .afterNode = afterNode});
  }

  void diffGraphInputs(const Graph& a, const Graph& b, const std::string& scope) {
    std::vector<std::string> orderA, orderB;
    for (const Value* input : a.inputs()) {
      const Value* other = mapped(input);
      if (!other || !other->isGraphInput()) {
        add({.kind = ChangeKind::GraphInputRemoved,
             .scope = scope,
             .subject = quoted(input->name()),
             .before = input->type().toString()});
        continue;
      }
      orderA.push_back(other->name());
      diffValue(*input, *other, scope, kNoNode, kNoNode);
    }
    for (const Value* input : b.inputs()) {
      auto it = anchors_.afterToBefore.find(input);
      if (it == anchors_.afterToBefore.end() || !it->second->isGraphInput())
        add({.kind = ChangeKind::GraphInputAdded,
             .scope = scope,
             .subject = quoted(input->name()),
             .after = input->type().toString()});
      else
        orderB.push_back(input->name());
    }
    if (orderA != orderB)
      add({.kind = ChangeKind::GraphInputsReordered,
           .scope = scope,
           .before = join(orderA),
           .after = join(orderB)});
  }

  void diffGraphOutputs(const Graph& a, const Graph& b, const std::string& scope) {
    std::vector<bool> pairedB(b.outputs().size(), false);
    auto findB = [&](auto&& matches) -> std::optional<size_t> {
      for (size_t j = 0; j < b.outputs().size(); ++j)
        if (!pairedB[j] && b.outputs()[j] && matches(b.outputs()[j])) return j;
      return std::nullopt;
    };
    for (const Value* output : a.outputs()) {
      if (!output) continue;
      const Value* target = mapped(output);
      if (auto j = findB([&](const Value* v) { return v == target; })) {
        pairedB[*j] = true;
        continue;
      }
      if (auto j = findB([&](const Value* v) { return v->name() == output->name(); })) {
        pairedB[*j] = true;
        add({.kind = ChangeKind::GraphOutputChanged,
             .scope = scope,
             .subject = quoted(output->name()),
             .before = producerText(output),
             .after = producerText(b.outputs()[*j])});
        continue;
      }
      add({.kind = ChangeKind::GraphOutputRemoved,
           .scope = scope,
           .subject = quoted(output->name()),
           .before = output->type().toString()});
    }
    for (size_t j = 0; j < b.outputs().size(); ++j)
      if (!pairedB[j] && b.outputs()[j])
        add({.kind = ChangeKind::GraphOutputAdded,
             .scope = scope,
             .subject = quoted(b.outputs()[j]->name()),
             .after = b.outputs()[j]->type().toString()});
  }

  void diffInitializers(const Graph& a, const Graph& b, const std::string& scope) {
    auto constants = [](const Graph& graph) {
      std::vector<const Value*> list(graph.initializers().begin(), graph.initializers().end());
      list.insert(list.end(), graph.sparseInitializers().begin(), graph.sparseInitializers().end());
      return list;
    };
    for (const Value* value : constants(a)) {
      const Value* other = mapped(value);
      if (!other) {
        add({.kind = ChangeKind::InitializerRemoved,
             .scope = scope,
             .subject = quoted(value->name()),
             .before = initializerText(value)});
        continue;
      }
      if (value->name() != other->name())
        add({.kind = ChangeKind::ValueRenamed,
             .scope = scope,
             .subject = quoted(value->name()),
             .before = value->name(),
             .after = other->name()});
      std::vector<std::string> what;
      const Tensor* ta = value->initializer();
      const Tensor* tb = other->initializer();
      if (ta && tb) {
        if (ta->dtype() != tb->dtype()) what.push_back("element type");
        if (ta->dims() != tb->dims()) what.push_back("shape");
        if (tensorContentHash(*ta) != tensorContentHash(*tb) && what.empty()) what.push_back("content");
      } else if (value->type() != other->type() || initializerText(value) != initializerText(other)) {
        what.push_back("sparse tensor");
      }
      if (!what.empty())
        add({.kind = ChangeKind::InitializerChanged,
             .scope = scope,
             .subject = quoted(other->name()),
             .item = join(what),
             .before = initializerText(value),
             .after = initializerText(other)});
    }
    for (const Value* value : constants(b))
      if (!anchors_.afterToBefore.count(value))
        add({.kind = ChangeKind::InitializerAdded,
             .scope = scope,
             .subject = quoted(value->name()),
             .after = initializerText(value)});
  }

  void diffNodes(const Node& a, const Node& b, const std::string& scope) {
    size_t before = out_.changes.size();
    auto nodeChange = [&](ChangeKind kind, std::string item, std::string old, std::string fresh) {
      add({.kind = kind,
           .scope = scope,
           .subject = b.describe(),
           .item = std::move(item),
           .before = std::move(old),
           .after = std::move(fresh),
           .beforeNode = a.id(),
           .afterNode = b.id()});
    };
    if (opText(a) != opText(b)) nodeChange(ChangeKind::NodeOpChanged, "", opText(a), opText(b));
    if (a.name() != b.name()) nodeChange(ChangeKind::NodeRenamed, "", a.name(), b.name());
    for (size_t i = 0; i < std::max(a.inputCount(), b.inputCount()); ++i) {
      const Value* va = a.input(i);
      const Value* vb = b.input(i);
      if (!va && !vb) continue;
      if (va && vb && mapped(va) == vb) continue;
      if (va && vb && va->name() == vb->name())  // same name, made by another node
        nodeChange(ChangeKind::NodeInputProducerChanged,
                   "input " + std::to_string(i) + " " + quoted(vb->name()), producerText(va),
                   producerText(vb));
      else
        nodeChange(ChangeKind::NodeInputChanged, "input " + std::to_string(i), nameOf(va), nameOf(vb));
    }
    for (size_t i = 0; i < std::max(a.outputCount(), b.outputCount()); ++i)
      if (bool(a.output(i)) != bool(b.output(i)))
        nodeChange(ChangeKind::NodeOutputChanged, "output " + std::to_string(i), nameOf(a.output(i)),
                   nameOf(b.output(i)));
    diffAttributes(a, b, nodeChange);
    if (out_.changes.size() != before) ++out_.summary.nodesChanged;
    for (size_t i = 0; i < std::min(a.outputCount(), b.outputCount()); ++i)
      if (a.output(i) && b.output(i)) diffValue(*a.output(i), *b.output(i), scope, a.id(), b.id());
  }

  template <class Report>
  void diffAttributes(const Node& a, const Node& b, Report&& report) {
    auto text = [](const Attribute& attribute) {
      if (attribute.kind() == Attribute::Kind::Graph) return std::string("<graph>");
      return attribute.valueToString();
    };
    for (const Attribute& attribute : a.attributes())
      if (!b.attribute(attribute.name()))
        report(ChangeKind::AttributeRemoved, attribute.name(), text(attribute), "");
    for (const Attribute& attribute : b.attributes()) {
      const Attribute* old = a.attribute(attribute.name());
      if (!old) {
        report(ChangeKind::AttributeAdded, attribute.name(), "", text(attribute));
        continue;
      }
      // Bodies are compared node by node (diffBodies); only their number counts here.
      bool bodies = !attribute.subgraphs().empty() || !old->subgraphs().empty();
      bool same =
          bodies ? old->kind() == attribute.kind() && old->subgraphs().size() == attribute.subgraphs().size()
                 : attributeValueHash(*old) == attributeValueHash(attribute);
      if (same) continue;
      std::string oldText = text(*old), newText = text(attribute);
      if (oldText == newText) {  // tensors of the same type: tell them apart by content
        oldText += " #" + hashToHex(attributeValueHash(*old));
        newText += " #" + hashToHex(attributeValueHash(attribute));
      }
      report(ChangeKind::AttributeChanged, attribute.name(), oldText, newText);
    }
  }

  void diffBodies(const Node& a, const Node& b, const std::string& scope) {
    for (const Attribute& attribute : b.attributes()) {
      const Attribute* old = a.attribute(attribute.name());
      if (!old) continue;
      std::vector<Graph*> bodiesA = old->subgraphs(), bodiesB = attribute.subgraphs();
      for (size_t i = 0; i < std::min(bodiesA.size(), bodiesB.size()); ++i) {
        std::string where = b.describe() + " " + attribute.name();
        if (attribute.kind() == Attribute::Kind::Graphs) where += "[" + std::to_string(i) + "]";
        diffGraphs(*bodiesA[i], *bodiesB[i], joinScope(scope, where));
      }
    }
  }

  MatchBy by_;
  ModelDiff& out_;
  ValueAnchors anchors_;
};

void summarize(ModelDiff& diff) {
  DiffSummary& s = diff.summary;
  for (const Change& change : diff.changes) {
    switch (change.kind) {
      case ChangeKind::OpsetChanged:
        ++s.opsetsChanged;
        break;
      case ChangeKind::GraphInputAdded:
        ++s.graphInputsAdded;
        break;
      case ChangeKind::GraphInputRemoved:
        ++s.graphInputsRemoved;
        break;
      case ChangeKind::GraphInputsReordered:
        ++s.graphInputsReordered;
        break;
      case ChangeKind::GraphOutputAdded:
        ++s.graphOutputsAdded;
        break;
      case ChangeKind::GraphOutputRemoved:
        ++s.graphOutputsRemoved;
        break;
      case ChangeKind::GraphOutputChanged:
        ++s.graphOutputsChanged;
        break;
      case ChangeKind::InitializerAdded:
        ++s.initializersAdded;
        break;
      case ChangeKind::InitializerRemoved:
        ++s.initializersRemoved;
        break;
      case ChangeKind::InitializerChanged:
        ++s.initializersChanged;
        break;
      case ChangeKind::NodeAdded:
        ++s.nodesAdded;
        break;
      case ChangeKind::NodeRemoved:
        ++s.nodesRemoved;
        break;
      case ChangeKind::ValueRenamed:
        ++s.valuesRenamed;
        break;
      case ChangeKind::ValueTypeChanged:
        ++s.valueTypesChanged;
        break;
      case ChangeKind::FunctionAdded:
        ++s.functionsAdded;
        break;
      case ChangeKind::FunctionRemoved:
        ++s.functionsRemoved;
        break;
      case ChangeKind::NodesFused:
      case ChangeKind::NodeSplit:
        // The entry groups nodes that were still removed and added: the counts keep counting them.
        ++(change.kind == ChangeKind::NodesFused ? s.fusions : s.splits);
        for (NodeId node : change.beforeNodes) s.nodesRemoved += diff.statusBefore(node) == NodeStatus::Removed;
        for (NodeId node : change.afterNodes) s.nodesAdded += diff.statusAfter(node) == NodeStatus::Added;
        break;
      default:
        break;  // node changes are counted per node, function changes per function
    }
  }
}

}  // namespace

ModelDiff diffModels(const Model& before, const Model& after, MatchBy by) {
  ModelDiff diff;
  Differ differ(by, diff);
  differ.diffOpsets(before, after);
  differ.diffGraphs(before.graph(), after.graph(), "");
  differ.diffFunctions(before, after);
  // Statuses from the plain changes: a node fused away is still removed on the canvas.
  for (const Change& change : diff.changes) {
    if (change.kind == ChangeKind::NodeRemoved) diff.beforeStatus_[change.beforeNode] = NodeStatus::Removed;
    if (change.kind == ChangeKind::NodeAdded) diff.afterStatus_[change.afterNode] = NodeStatus::Added;
    if (isNodeChange(change.kind)) {
      diff.beforeStatus_[change.beforeNode] = NodeStatus::Changed;
      diff.afterStatus_[change.afterNode] = NodeStatus::Changed;
    }
  }
  pairByOrigins(before, after, by, diff);
  summarize(diff);
  return diff;
}

}  // namespace onyx::diff
