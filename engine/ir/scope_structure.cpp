#include "ir/scope_structure.h"

#include <string>
#include <unordered_map>

namespace onyx {
namespace {

void collectNodes(const Scope& scope, std::vector<const Node*>& nodes) {
  for (const Node* node : scope.nodes)
    if (!isFoldedConstant(node)) nodes.push_back(node);
  for (const auto& child : scope.children) {
    nodes.push_back(nullptr);  // a child's boundary is part of the structure
    collectNodes(*child, nodes);
  }
}

// FNV-1a over the text of the structure, one field at a time.
struct Hasher {
  uint64_t value = 1469598103934665603ull;
  void add(std::string_view text) {
    for (unsigned char c : text) value = (value ^ c) * 1099511628211ull;
    value = (value ^ 0xff) * 1099511628211ull;  // a separator, so "ab","c" differs from "a","bc"
  }
  void add(int64_t number) { add(std::to_string(number)); }
};

}  // namespace

uint64_t structureHash(const Scope& scope) {
  std::vector<const Node*> nodes;
  collectNodes(scope, nodes);
  std::unordered_map<const Node*, int64_t> position;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i]) position.emplace(nodes[i], static_cast<int64_t>(i));
  std::unordered_map<const Value*, int64_t> entering;  // outside values, numbered as first met
  Hasher hash;
  for (const Node* node : nodes) {
    if (!node) {
      hash.add("scope");
      continue;
    }
    hash.add(node->domain());
    hash.add(node->opType());
    hash.add(static_cast<int64_t>(node->outputCount()));
    for (const Attribute& attribute : node->attributes()) {
      hash.add(attribute.name());
      const bool data = attribute.getTensor() || attribute.getGraph();
      hash.add(data ? std::string("data") : attribute.valueToString());
    }
    for (const Value* input : node->inputs()) {
      if (!input) {
        hash.add("absent");
        continue;
      }
      const Node* producer = input->producer();
      if (input->isInitializer() || (producer && isFoldedConstant(producer))) {
        hash.add("weight");
      } else if (auto it = producer ? position.find(producer) : position.end(); it != position.end()) {
        hash.add(it->second);
        hash.add(input->producerOutput());
      } else {
        auto [known, added] = entering.try_emplace(input, static_cast<int64_t>(entering.size()));
        hash.add("in");
        hash.add(known->second);
      }
    }
  }
  return hash.value;
}

std::vector<size_t> repeatCounts(const std::vector<const Scope*>& scopes) {
  std::vector<uint64_t> hashes;
  hashes.reserve(scopes.size());
  std::unordered_map<uint64_t, size_t> count;
  for (const Scope* scope : scopes) {
    hashes.push_back(structureHash(*scope));
    ++count[hashes.back()];
  }
  std::vector<size_t> counts;
  counts.reserve(scopes.size());
  for (uint64_t hash : hashes) counts.push_back(count[hash]);
  return counts;
}

}  // namespace onyx
