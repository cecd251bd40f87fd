#include "diff/node_matcher.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string>

#include "diff/content_hash.h"

namespace onyx::diff {

void ValueAnchors::pair(const Value* a, const Value* b) {
  uint64_t id = next++;
  before[a] = id;
  after[b] = id;
  beforeToAfter[a] = b;
  afterToBefore[b] = a;
}

namespace {

// One graph of the pair, with what the labelling needs: a topological order (the stored order where it is
// already topological), and the anchors and labels of this side.
struct Side {
  const Graph* graph;
  std::unordered_map<const Value*, uint64_t>* valueAnchors;
  std::unordered_map<const Node*, const Node*>* matched;  // this side's node -> the other side's
  std::vector<const Node*> order;
  std::unordered_map<const Node*, uint64_t> nodeAnchor;
  std::unordered_map<const Node*, uint64_t> label;

  Side(const Graph& g, std::unordered_map<const Value*, uint64_t>& anchors,
       std::unordered_map<const Node*, const Node*>& matches)
      : graph(&g), valueAnchors(&anchors), matched(&matches) {
    order = topologicalOrder(g);
  }

  bool isMatched(const Node* node) const { return matched->count(node) != 0; }
  bool isLocal(const Node* node) const { return node && node->graph() == graph; }

  static std::vector<const Node*> topologicalOrder(const Graph& graph) {
    std::vector<const Node*> stored;
    std::unordered_map<const Node*, size_t> index;
    for (const Node* node : graph.nodes()) {
      index[node] = stored.size();
      stored.push_back(node);
    }
    std::vector<size_t> pending(stored.size(), 0);
    for (size_t i = 0; i < stored.size(); ++i)
      for (const Value* input : stored[i]->inputs())
        if (input && input->producer() && input->producer()->graph() == &graph) ++pending[i];
    // Smallest stored index first among the ready nodes: a file already in topological order keeps its order.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < stored.size(); ++i)
      if (pending[i] == 0) ready.push(i);
    std::vector<const Node*> order;
    std::vector<bool> placed(stored.size(), false);
    while (!ready.empty()) {
      size_t i = ready.top();
      ready.pop();
      order.push_back(stored[i]);
      placed[i] = true;
      for (const Value* output : stored[i]->outputs()) {
        if (!output) continue;
        for (const Use& use : output->uses()) {
          if (!use.node || use.node->graph() != &graph) continue;
          size_t consumer = index.at(use.node);
          if (--pending[consumer] == 0) ready.push(consumer);
        }
      }
    }
    // Nodes on a cycle (a broken model) follow in stored order.
    for (size_t i = 0; i < stored.size(); ++i)
      if (!placed[i]) order.push_back(stored[i]);
    return order;
  }
};

uint64_t baseLabel(const Node& node, bool withAttributes) {
  Hasher hasher;
  hasher.add(node.opType()).add(node.domain()).add(node.overload());
  hasher.add(uint64_t(node.inputCount())).add(uint64_t(node.outputCount()));
  if (!withAttributes) return hasher.result();
  std::map<std::string, uint64_t> attributes;  // by name: attribute order does not matter
  for (const Attribute& attribute : node.attributes()) {
    uint64_t hash = attributeValueHash(attribute);
    for (const Graph* body : attribute.subgraphs())
      hash = Hasher().add(hash).add(uint64_t(body->nodeCount())).result();
    attributes[attribute.name()] = hash;
  }
  for (const auto& [name, hash] : attributes) hasher.add(name).add(hash);
  return hasher.result();
}

class Matcher {
 public:
  Matcher(const Graph& before, const Graph& after, ValueAnchors& anchors)
      : anchors_(anchors),
        a_(before, anchors.before, match_.beforeToAfter),
        b_(after, anchors.after, match_.afterToBefore) {}

  GraphMatch run(MatchBy by) {
    matchGraphInputs();
    matchInitializers();
    if (by == MatchBy::NodeIds) {
      for (const Node* node : a_.order)
        if (const Node* other = b_.graph->findNode(node->id())) pairNodes(node, other);
      return std::move(match_);
    }
    matchByName();
    for (;;) {
      size_t found = matchByLabels(forwardLabels(a_, true), forwardLabels(b_, true));
      found += matchByLabels(backwardLabels(a_, true), backwardLabels(b_, true));
      if (found) continue;
      found += matchByLabels(forwardLabels(a_, false), forwardLabels(b_, false));
      found += matchByLabels(backwardLabels(a_, false), backwardLabels(b_, false));
      if (found) continue;
      if (!matchByNeighbours()) break;
    }
    return std::move(match_);
  }

 private:
  using Labels = std::unordered_map<const Node*, uint64_t>;

  void pairNodes(const Node* a, const Node* b) {
    match_.beforeToAfter[a] = b;
    match_.afterToBefore[b] = a;
    uint64_t id = nextNodeAnchor_++;
    a_.nodeAnchor[a] = id;
    b_.nodeAnchor[b] = id;
    for (size_t i = 0; i < std::min(a->outputCount(), b->outputCount()); ++i)
      if (a->output(i) && b->output(i)) anchors_.pair(a->output(i), b->output(i));
  }

  void matchGraphInputs() {
    std::vector<const Value*> leftA, leftB;
    for (const Value* input : b_.graph->inputs()) leftB.push_back(input);
    for (const Value* input : a_.graph->inputs()) {
      auto it = std::find_if(leftB.begin(), leftB.end(),
                             [&](const Value* v) { return v->name() == input->name(); });
      if (it == leftB.end()) {
        leftA.push_back(input);
        continue;
      }
      anchors_.pair(input, *it);
      leftB.erase(it);
    }
    // Renamed inputs: the leftovers pair up in order while their types agree.
    for (size_t i = 0; i < std::min(leftA.size(), leftB.size()) && leftA[i]->type() == leftB[i]->type(); ++i)
      anchors_.pair(leftA[i], leftB[i]);
  }

  void matchInitializers() {
    auto unanchored = [](const Graph& graph, const std::unordered_map<const Value*, uint64_t>& anchors) {
      std::vector<const Value*> values;
      for (const Value* v : graph.initializers())
        if (!anchors.count(v)) values.push_back(v);
      for (const Value* v : graph.sparseInitializers())
        if (!anchors.count(v)) values.push_back(v);
      return values;
    };
    std::vector<const Value*> leftA = unanchored(*a_.graph, anchors_.before);
    std::unordered_map<std::string_view, const Value*> byNameB;
    for (const Value* v : unanchored(*b_.graph, anchors_.after)) byNameB.emplace(v->name(), v);
    std::vector<const Value*> stillA;
    for (const Value* v : leftA) {
      auto it = byNameB.find(v->name());
      if (it != byNameB.end() && bool(v->initializer()) == bool(it->second->initializer())) {
        anchors_.pair(v, it->second);
        byNameB.erase(it);
      } else {
        stillA.push_back(v);
      }
    }
    // Renamed constants: same content, in order of appearance.
    std::unordered_map<uint64_t, std::vector<const Value*>> byContentA;
    for (const Value* v : stillA)
      if (v->initializer()) byContentA[tensorContentHash(*v->initializer())].push_back(v);
    for (const Value* v : unanchored(*b_.graph, anchors_.after)) {
      if (!v->initializer()) continue;
      auto it = byContentA.find(tensorContentHash(*v->initializer()));
      if (it == byContentA.end() || it->second.empty()) continue;
      anchors_.pair(it->second.front(), v);
      it->second.erase(it->second.begin());
    }
  }

  void matchByName() {
    auto uniqueNames = [](const Side& side) {
      std::unordered_map<std::string_view, const Node*> names;
      std::unordered_map<std::string_view, int> counts;
      for (const Node* node : side.order) {
        if (node->name().empty()) continue;
        ++counts[node->name()];
        names[node->name()] = node;
      }
      std::erase_if(names, [&](const auto& entry) { return counts[entry.first] != 1; });
      return names;
    };
    auto namesB = uniqueNames(b_);
    auto namesA = uniqueNames(a_);
    for (const Node* node : a_.order) {
      if (!namesA.count(node->name())) continue;
      auto it = namesB.find(node->name());
      if (it != namesB.end()) pairNodes(node, it->second);
    }
  }

  uint64_t valueLabel(const Side& side, const Value* value) const {
    if (!value) return Hasher().add("absent").result();
    auto anchor = side.valueAnchors->find(value);
    if (anchor != side.valueAnchors->end()) return Hasher().add("anchor").add(anchor->second).result();
    if (Node* producer = value->producer(); side.isLocal(producer)) {
      auto label = side.label.find(producer);
      uint64_t producerLabel = label == side.label.end() ? 0 : label->second;  // 0: on a cycle
      return Hasher().add(producerLabel).add(uint64_t(value->producerOutput())).result();
    }
    if (value->isGraphInput()) return Hasher().add("input").add(value->type().toString()).result();
    if (const Tensor* tensor = value->initializer())
      return Hasher().add("constant").add(tensorTypeText(*tensor)).result();
    return Hasher().add("outer").add(value->name()).result();
  }

  uint64_t anchorLabel(const Side& side, const Node* node) const {
    return Hasher().add("matched").add(side.nodeAnchor.at(node)).result();
  }

  // Strict: every unmatched node gets a label. Loose (no attributes): only nodes whose inputs are all
  // matched, since the op alone is weak evidence.
  Labels forwardLabels(Side& side, bool strict) {
    side.label.clear();
    Labels candidates;
    for (const Node* node : side.order) {
      if (side.isMatched(node)) {
        side.label[node] = anchorLabel(side, node);
        continue;
      }
      Hasher hasher;
      hasher.add(strict ? "forward" : "forward-loose").add(baseLabel(*node, strict));
      bool allAnchored = true, anyInput = false;
      for (const Value* input : node->inputs()) {
        hasher.add(valueLabel(side, input));
        if (!input) continue;
        anyInput = true;
        allAnchored = allAnchored && side.valueAnchors->count(input);
      }
      side.label[node] = hasher.result();
      if (strict || (anyInput && allAnchored)) candidates[node] = hasher.result();
    }
    return candidates;
  }

  Labels backwardLabels(Side& side, bool strict) {
    side.label.clear();
    Labels candidates;
    for (auto it = side.order.rbegin(); it != side.order.rend(); ++it) {
      const Node* node = *it;
      if (side.isMatched(node)) {
        side.label[node] = anchorLabel(side, node);
        continue;
      }
      std::vector<uint64_t> uses;
      bool allMatched = true;
      for (size_t i = 0; i < node->outputCount(); ++i) {
        const Value* output = node->output(i);
        if (!output) continue;
        for (const Use& use : output->uses()) {
          Hasher use_hash;
          use_hash.add(uint64_t(i));
          if (use.graphOutput) {
            use_hash.add("graph-output");
          } else if (side.isLocal(use.node)) {
            use_hash.add(side.label[use.node]).add(uint64_t(use.index));
            allMatched = allMatched && side.isMatched(use.node);
          } else {
            use_hash.add("used-in-body");
            allMatched = false;
          }
          uses.push_back(use_hash.result());
        }
      }
      std::sort(uses.begin(), uses.end());  // the multiset of uses, whatever their order
      Hasher hasher;
      hasher.add(strict ? "backward" : "backward-loose").add(baseLabel(*node, strict));
      for (uint64_t use : uses) hasher.add(use);
      side.label[node] = hasher.result();
      if (strict || (!uses.empty() && allMatched)) candidates[node] = hasher.result();
    }
    return candidates;
  }

  // Pairs unmatched nodes with equal labels; several on each side pair up in topological order.
  size_t matchByLabels(const Labels& labelsA, const Labels& labelsB) {
    std::unordered_map<uint64_t, std::vector<const Node*>> groups;
    for (const Node* node : a_.order) {
      auto it = labelsA.find(node);
      if (it != labelsA.end() && !a_.isMatched(node)) groups[it->second].push_back(node);
    }
    std::unordered_map<uint64_t, size_t> taken;
    std::vector<std::pair<const Node*, const Node*>> pairs;
    for (const Node* node : b_.order) {
      auto it = labelsB.find(node);
      if (it == labelsB.end() || b_.isMatched(node)) continue;
      auto group = groups.find(it->second);
      if (group == groups.end()) continue;
      size_t& next = taken[it->second];
      if (next < group->second.size()) pairs.emplace_back(group->second[next++], node);
    }
    for (auto [a, b] : pairs) pairNodes(a, b);
    return pairs.size();
  }

  // Keys saying "an `op` reading matched value V at input i" or "an `op` whose output j feeds input k of
  // matched node N": a node's place next to matched neighbours, when its other side changed too.
  std::vector<uint64_t> neighbourKeys(const Side& side, const Node* node) const {
    std::vector<uint64_t> keys;
    for (size_t i = 0; i < node->inputCount(); ++i) {
      auto anchor = side.valueAnchors->find(node->input(i));
      if (anchor == side.valueAnchors->end()) continue;
      keys.push_back(Hasher()
                         .add("reads")
                         .add(node->opType())
                         .add(node->domain())
                         .add(uint64_t(i))
                         .add(anchor->second)
                         .result());
    }
    for (size_t j = 0; j < node->outputCount(); ++j) {
      if (!node->output(j)) continue;
      for (const Use& use : node->output(j)->uses()) {
        if (!side.isLocal(use.node) || !side.isMatched(use.node)) continue;
        keys.push_back(Hasher()
                           .add("feeds")
                           .add(node->opType())
                           .add(node->domain())
                           .add(uint64_t(j))
                           .add(side.nodeAnchor.at(use.node))
                           .add(uint64_t(use.index))
                           .result());
      }
    }
    return keys;
  }

  // The weakest evidence, used when labels match nothing more: same op next to the same matched neighbour.
  size_t matchByNeighbours() {
    std::unordered_map<uint64_t, std::vector<const Node*>> candidates;
    for (const Node* node : a_.order)
      if (!a_.isMatched(node))
        for (uint64_t key : neighbourKeys(a_, node)) candidates[key].push_back(node);
    std::unordered_map<const Node*, bool> taken;
    std::vector<std::pair<const Node*, const Node*>> pairs;
    for (const Node* node : b_.order) {
      if (b_.isMatched(node)) continue;
      for (uint64_t key : neighbourKeys(b_, node)) {
        auto it = candidates.find(key);
        if (it == candidates.end()) continue;
        auto free =
            std::find_if(it->second.begin(), it->second.end(), [&](const Node* n) { return !taken[n]; });
        if (free == it->second.end()) continue;
        taken[*free] = true;
        pairs.emplace_back(*free, node);
        break;
      }
    }
    for (auto [a, b] : pairs) pairNodes(a, b);
    return pairs.size();
  }

  ValueAnchors& anchors_;
  GraphMatch match_;
  Side a_, b_;
  uint64_t nextNodeAnchor_ = 1;
};

}  // namespace

GraphMatch matchGraphs(const Graph& before, const Graph& after, MatchBy by, ValueAnchors& anchors) {
  return Matcher(before, after, anchors).run(by);
}

}  // namespace onyx::diff
