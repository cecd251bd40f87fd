// common-subexpression-elimination: two nodes with the same op, domain, inputs (the same values, in order)
// and attributes compute the same outputs; the later one is replaced by the earlier. Nondeterministic ops,
// ops of other domains (they may have effects) and nodes with bodies are left alone; the com.microsoft ops
// Onyx implements are pure (isKnownContribOp) and merge like standard ones, never with an op of another domain.
#include <fmt/format.h>

#include <functional>
#include <unordered_map>

#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

void appendTensorKey(std::string& key, const Tensor& tensor) {
  key += fmt::format("t{}[", int(tensor.dtype()));
  for (int64_t d : tensor.dims()) key += std::to_string(d) + ",";
  key += "]";
  if (tensor.dtype() == DataType::String) {
    for (const std::string& s : tensor.stringValues()) key += std::to_string(s.size()) + ":" + s;
  } else {
    auto bytes = tensor.bytesOrEmpty();
    key.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
}

// Attributes as bytes that are equal exactly when the attributes are (names sorted by the node's order,
// which exporters keep stable; a different order only costs a missed merge).
std::optional<std::string> attributeKey(const Node& node) {
  std::string key;
  for (const Attribute& a : node.attributes()) {
    key += a.name() + "=" + std::to_string(int(a.kind())) + ":";
    if (a.isReference()) return std::nullopt;
    if (const auto* f = a.getFloat()) {
      key.append(reinterpret_cast<const char*>(f), sizeof(float));
    } else if (const auto* i = a.getInt()) {
      key += std::to_string(*i);
    } else if (const auto* s = a.getString()) {
      key += std::to_string(s->size()) + ":" + *s;
    } else if (const auto* t = a.getTensor()) {
      appendTensorKey(key, *t);
    } else if (const auto* fs = a.getFloats()) {
      key.append(reinterpret_cast<const char*>(fs->data()), fs->size() * sizeof(float));
    } else if (const auto* is = a.getInts()) {
      for (int64_t v : *is) key += std::to_string(v) + ",";
    } else if (const auto* ss = a.getStrings()) {
      for (const std::string& s : *ss) key += std::to_string(s.size()) + ":" + s;
    } else {
      return std::nullopt;  // graphs, sparse tensors, type protos: not compared
    }
    key += ";";
  }
  return key;
}

std::optional<std::string> nodeKey(const Node& node) {
  auto attributes = attributeKey(node);
  if (!attributes) return std::nullopt;
  std::string key = node.domain() + "::" + node.opType() + "::" + node.overload() + "(";
  for (const Value* input : node.inputs()) key += fmt::format("{},", static_cast<const void*>(input));
  key += fmt::format(")->{}|", node.outputCount());
  for (size_t i = 0; i < node.outputCount(); ++i) key += node.output(i) ? "o" : "-";
  return key + "|" + *attributes;
}

}  // namespace

Expected<bool> CommonSubexpressionElimination::run(PassContext& context) {
  bool changed = false;
  // One table per graph: a body's node is never merged with one of another graph (its twin in the outer
  // graph may not run, as in an If branch), and keys hold input identities, so outer values match exactly.
  for (Graph* graph : allGraphs(context.model(), FunctionBodies::Include)) {
    std::unordered_map<std::string, Node*> seen;
    for (Node* node : orderedNodes(*graph)) {
      if (!context.inScope(*node) || isNondeterministic(*node) || !node->subgraphs().empty()) continue;
      auto key = nodeKey(*node);
      if (!key) continue;
      auto [found, inserted] = seen.try_emplace(*key, node);
      if (inserted) continue;
      Node* first = found->second;
      std::vector<Value*> replacements = first->outputs();
      if (auto reason = whyNotReplaceable(*node, replacements)) {
        context.skip(*node, "same as " + first->describe() + " but " + *reason);
        continue;
      }
      replaceNode(context.rewriter(), node, replacements);
      context.count("nodes-merged");
      changed = true;
    }
  }
  return changed;
}

}  // namespace onyx::passes
