#include "layout/level_view.h"

#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ir/model.h"
#include "ir/scope_structure.h"
#include "layout/item_text.h"

namespace onyx::layout {
namespace {

// Where a node of the graph shows up in the level.
struct Placement {
  enum class Kind { Outside, Group, Node } kind = Kind::Outside;
  const Scope* group = nullptr;  // the collapsed scope standing for it
  int cluster = -1;              // innermost expanded scope around it
};

bool isFolded(const Value* value) {
  if (const Node* producer = value->producer()) return isFoldedConstant(producer);
  return value->isInitializer() || value->sparseInitializer();
}

std::string tensorTypeText(const Tensor& tensor) {
  return Type::tensor(tensor.dtype(), Shape(tensor.dims().begin(), tensor.dims().end())).toString();
}

// "float32[64, 3, 7, 7]" for an initializer or a Constant's tensor.
std::string foldedTypeText(const Value* value) {
  if (const Tensor* tensor = value->initializer()) return tensorTypeText(*tensor);
  if (const Node* alias = value->producer(); alias && alias->opType() == "Identity" && alias->input(0)) {
    if (const Tensor* tensor = alias->input(0)->initializer()) return tensorTypeText(*tensor);
  }
  if (const Node* constant = value->producer()) {
    for (const Attribute& attribute : constant->attributes()) {
      if (const Tensor* tensor = attribute.getTensor()) return tensorTypeText(*tensor);
    }
    if (value->type().isNone() && !constant->attributes().empty()) {
      return constant->attributes().front().valueToString();
    }
  }
  return value->type().toString();
}

std::string defaultLabel(const Value* value) {
  return value->type().isNone() ? std::string() : value->type().toString();
}

bool defaultUnresolved(const Value* value) {
  const Type& type = value->type();
  if (type.kind() != Type::Kind::Tensor && type.kind() != Type::Kind::SparseTensor) return false;
  if (!type.shape()) return true;
  for (const Dim& dim : *type.shape()) {
    if (dim.isUnknown()) return true;
  }
  return false;
}

// Above this many values entering a level from nodes outside it, in-ports are merged per producing scope.
constexpr size_t kMaxSeparatePorts = 40;

class LevelBuilder {
 public:
  LevelBuilder(const LevelRequest& request, const ScopeTree& scopes, const Scope& shown,
               const EdgeLabeler& labeler)
      : request_(request), scopes_(scopes), shown_(shown), labeler_(labeler) {
    level_.graph = request.graph;
    level_.scopePath = shown.path;
    flat_ = request.expandAll || shown.totalNodes <= request.collapseThreshold;
    start_ = flat_ ? &shown : effectiveScope(scopes, shown.path);
    expanded_ = request.expandedScopes;
    if (!flat_) expandDominantChildren();
  }

  LevelView build() {
    const Graph& graph = *request_.graph;
    bool wholeGraph = shown_.parent == nullptr;
    if (wholeGraph) {
      for (const Value* input : graph.inputs()) {
        if (!isFolded(input)) terminal(ItemKind::Input, "in:", input);
      }
    }
    itemOfNode_.reserve(graph.nodeCount());
    for (const Node* node : graph.nodes()) {
      if (!isFoldedConstant(node)) {
        itemOfNode_.emplace(node, placeNode(node));
      } else if (placementOf(node).kind == Placement::Kind::Node) {
        ++level_.foldedConstants;
      }
    }
    if (wholeGraph) {
      for (const Value* output : graph.outputs()) terminal(ItemKind::Output, "out:", output);
    }
    mergePorts_ = enteringFromNodes() > kMaxSeparatePorts;
    for (const Value* input : graph.inputs()) addEdgesOf(input);
    // Values from enclosing graphs (a body reading the outer scope) and undefined ones enter through ports.
    std::vector<const Value*> entering;
    std::unordered_set<const Value*> seen;
    collectEntering(graph, entering, seen);
    for (const Value* value : entering) addEdgesOf(value);
    for (const Node* node : graph.nodes()) {
      for (size_t i = 0; i < node->outputCount(); ++i) {
        if (const Value* output = node->output(i)) addEdgesOf(output);
      }
      foldInitializers(node);
    }
    return std::move(level_);
  }

 private:
  // A level that would show its only group, holding nearly all its nodes, beside a few loose nodes
  // (ssdlite: 20 Identity nodes and /m with 3,367 nodes) shows that group's interior in a frame instead,
  // while the boxes fit the threshold.
  void expandDominantChildren() {
    const Scope* scope = start_;
    size_t boxes = boxCount(*scope);
    while (scope->children.size() == 1) {
      const Scope* largest = scope->children.front().get();
      if (largest->totalNodes * 10 < scope->totalNodes * 9) return;
      size_t inside = boxCount(*largest);
      if (boxes - 1 + inside > request_.collapseThreshold) return;
      boxes = boxes - 1 + inside;
      expanded_.insert(largest->path);
      scope = largest;
    }
  }

  Placement placementOf(const Node* node) {
    const Scope* scope = scopes_.scopeOf(node->id());
    if (!scope) scope = &scopes_.root();  // a node added after the tree was built
    auto known = placements_.find(scope);
    if (known != placements_.end()) return known->second;
    // Ancestors from the scope up to (excluding) start_, innermost first.
    std::vector<const Scope*> chain;
    const Scope* walk = scope;
    while (walk && walk != start_) {
      chain.push_back(walk);
      walk = walk->parent;
    }
    Placement placement;
    if (!walk) {
      placement.kind = Placement::Kind::Outside;
    } else if (flat_) {
      placement.kind = Placement::Kind::Node;
    } else {
      placement.kind = Placement::Kind::Node;
      int cluster = -1;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!expanded_.contains((*it)->path)) {
          placement.kind = Placement::Kind::Group;
          placement.group = *it;
          break;
        }
        cluster = clusterFor(*it, cluster);
      }
      placement.cluster = cluster;
    }
    placements_.emplace(scope, placement);
    return placement;
  }

  int clusterFor(const Scope* scope, int parent) {
    auto [it, added] = clusters_.try_emplace(scope, static_cast<int>(level_.clusters.size()));
    if (added) level_.clusters.push_back({scope->path, scope->name, parent});
    return it->second;
  }

  // The item standing for a node of this graph; npos when it lies outside the shown scope.
  size_t itemFor(const Node* node) const {
    auto it = itemOfNode_.find(node);
    return it == itemOfNode_.end() ? LevelView::npos : it->second;
  }

  size_t placeNode(const Node* node) {
    Placement placement = placementOf(node);
    switch (placement.kind) {
      case Placement::Kind::Outside:
        return LevelView::npos;
      case Placement::Kind::Group: {
        auto [it, added] = groupItems_.try_emplace(placement.group, level_.items.size());
        if (added) {
          Item item;
          item.kind = ItemKind::Group;
          item.key = "g:" + placement.group->path;
          item.title = placement.group->name;
          item.name = placement.group->path;
          item.scopePath = placement.group->path;
          item.nodeCount = placement.group->totalNodes;
          item.cluster = placement.cluster;
          level_.items.push_back(std::move(item));
        }
        return it->second;
      }
      case Placement::Kind::Node: {
        Item item;
        item.kind = ItemKind::Node;
        item.key = "n:" + std::to_string(node->id());
        item.title = node->domain().empty() || node->domain() == "ai.onnx"
                         ? node->opType()
                         : node->domain() + "." + node->opType();
        item.attributeLines = keyAttributeLines(*node);
        item.name = node->name();
        item.node = node;
        const Scope* scope = scopes_.scopeOf(node->id());
        item.scopePath = scope ? scope->path : std::string(node->scopePath());
        item.cluster = placement.cluster;
        item.bodies = bodiesOf(*node);
        level_.items.push_back(std::move(item));
        return level_.items.size() - 1;
      }
    }
    return LevelView::npos;
  }

  std::vector<BodyRef> bodiesOf(const Node& node) const {
    std::vector<BodyRef> bodies;
    for (const Attribute& attribute : node.attributes()) {
      std::vector<Graph*> graphs = attribute.subgraphs();
      for (size_t i = 0; i < graphs.size(); ++i) {
        std::string label = attribute.name();
        if (graphs.size() > 1) label += "[" + std::to_string(i) + "]";
        bodies.push_back({std::move(label), graphs[i]});
      }
    }
    if (request_.model) {
      if (const Function* function =
              request_.model->findFunction(node.domain(), node.opType(), node.overload())) {
        bodies.push_back({function->name, function->body.get()});
      }
    }
    return bodies;
  }

  size_t terminal(ItemKind kind, const char* prefix, const Value* value) {
    std::string key = prefix + value->name();
    auto [it, added] = terminals_.try_emplace(key, level_.items.size());
    if (added) {
      Item item;
      item.kind = kind;
      item.key = key;
      item.title = value->name();
      item.name = value->name();
      item.value = value;
      level_.items.push_back(std::move(item));
    }
    return it->second;
  }

  bool definedWithin(const Graph* graph) const {
    for (; graph; graph = graph->parent()) {
      if (graph == request_.graph) return true;
    }
    return false;
  }

  void collectEntering(const Graph& graph, std::vector<const Value*>& entering,
                       std::unordered_set<const Value*>& seen) const {
    for (const Node* node : graph.nodes()) {
      for (const Value* input : node->inputs()) {
        if (!input || isFolded(input)) continue;
        bool outer = !definedWithin(input->graph());
        bool undefined = input->isUndefined() && input->graph() == request_.graph;
        if ((outer || undefined) && seen.insert(input).second) entering.push_back(input);
      }
      for (const Graph* body : node->subgraphs()) collectEntering(*body, entering, seen);
    }
  }

  // Where the value enters the level: its producer's item, an input terminal or an in-port.
  size_t sourceOf(const Value* value) {
    if (isFolded(value)) return LevelView::npos;
    const Graph* graph = request_.graph;
    if (const Node* producer = value->producer(); producer && producer->graph() == graph) {
      size_t item = itemFor(producer);
      if (item != LevelView::npos) return item;
    } else if (value->isGraphInput() && value->graph() == graph && shown_.parent == nullptr) {
      return terminal(ItemKind::Input, "in:", value);
    }
    if (mergePorts_) {
      if (const Node* producer = value->producer(); producer && producer->graph() == graph) {
        if (const Scope* scope = scopes_.scopeOf(producer->id())) return mergedPort(*scope, value);
      }
    }
    return terminal(ItemKind::PortIn, "pin:", value);
  }

  // Values produced by nodes of this graph outside the shown scope and read inside it.
  size_t enteringFromNodes() const {
    std::unordered_set<const Value*> entering;
    for (const auto& [node, item] : itemOfNode_) {
      if (item == LevelView::npos) continue;
      for (const Value* input : node->inputs()) {
        if (!input || isFolded(input)) continue;
        const Node* producer = input->producer();
        if (producer && producer->graph() == request_.graph && itemFor(producer) == LevelView::npos) {
          entering.insert(input);
        }
      }
    }
    return entering.size();
  }

  // One in-port per producing scope instead of one per value, for levels that collect many values (the
  // last run of ssdlite's post-processing reads 271, three per class).
  size_t mergedPort(const Scope& scope, const Value* value) {
    std::string key = "pin@" + scope.path;
    auto [it, added] = terminals_.try_emplace(key, level_.items.size());
    if (added) {
      Item item;
      item.kind = ItemKind::PortIn;
      item.key = key;
      item.title = "from " + (scope.name.empty() ? std::string("the graph") : scope.name);
      item.name = scope.path;
      item.value = value;
      item.scopePath = scope.path;
      level_.items.push_back(std::move(item));
    }
    return it->second;
  }

  // The node of this graph that a use belongs to: a use inside an If/Loop body counts for the If node.
  const Node* ownerInGraph(const Node* node) const {
    while (node && node->graph() != request_.graph) node = node->graph() ? node->graph()->owner() : nullptr;
    return node;
  }

  size_t targetOf(const Use& use, const Value* value) {
    const Node* consumer = use.node;
    if (!consumer && use.graphOutput) {
      if (use.graphOutput == request_.graph) {
        return shown_.parent == nullptr ? terminal(ItemKind::Output, "out:", value)
                                        : terminal(ItemKind::PortOut, "pout:", value);
      }
      consumer = use.graphOutput->owner();  // a body output naming an outer value
    }
    consumer = ownerInGraph(consumer);
    if (!consumer) return LevelView::npos;
    size_t item = itemFor(consumer);
    return item != LevelView::npos ? item : terminal(ItemKind::PortOut, "pout:", value);
  }

  bool sourceInside(const Value* value) {
    if (const Node* producer = value->producer(); producer && producer->graph() == request_.graph) {
      return itemFor(producer) != LevelView::npos;
    }
    return value->isGraphInput() && value->graph() == request_.graph && shown_.parent == nullptr;
  }

  bool targetInside(const Use& use) {
    if (use.graphOutput == request_.graph) return shown_.parent == nullptr;
    const Node* consumer = ownerInGraph(use.node          ? use.node
                                        : use.graphOutput ? use.graphOutput->owner()
                                                          : nullptr);
    return consumer && itemFor(consumer) != LevelView::npos;
  }

  void addEdgesOf(const Value* value) {
    if (isFolded(value)) return;
    bool fromInside = sourceInside(value);
    size_t from = LevelView::npos;
    for (const Use& use : value->uses()) {
      // A value made and used outside the shown scope does not concern this level.
      if (!fromInside && !targetInside(use)) continue;
      if (from == LevelView::npos) from = sourceOf(value);
      size_t to = targetOf(use, value);
      if (to == LevelView::npos || to == from) continue;
      addEdge(from, to, value);
    }
  }

  void addEdge(size_t from, size_t to, const Value* value) {
    bool merges = level_.items[from].kind == ItemKind::Group || level_.items[to].kind == ItemKind::Group ||
                  level_.items[from].key.starts_with("pin@");
    auto key = std::make_tuple(from, to, merges ? nullptr : value);
    auto [it, added] = edgeIndex_.try_emplace(key, level_.edges.size());
    if (!added) {
      Edge& edge = level_.edges[it->second];
      if (merges && lastValueOfEdge_[it->second] != value) {
        ++edge.valueCount;
        lastValueOfEdge_[it->second] = value;
      }
      return;
    }
    Edge edge;
    edge.from = from;
    edge.to = to;
    edge.value = value;
    edge.valueName = value->name();
    edge.label = labeler_.label ? labeler_.label(value) : defaultLabel(value);
    edge.unresolved = labeler_.unresolved ? labeler_.unresolved(value) : defaultUnresolved(value);
    level_.edges.push_back(std::move(edge));
    lastValueOfEdge_.push_back(value);
  }

  void foldInitializers(const Node* node) {
    size_t index = itemFor(node);
    if (index == LevelView::npos || level_.items[index].node != node) return;  // outside, or in a group
    Item& item = level_.items[index];
    for (size_t i = 0; i < node->inputCount(); ++i) {
      const Value* input = node->input(i);
      if (!input || !isFolded(input)) continue;
      item.initializers.push_back({input->name(), foldedTypeText(input), static_cast<int>(i)});
    }
  }

  const LevelRequest& request_;
  const ScopeTree& scopes_;
  const Scope& shown_;
  const EdgeLabeler& labeler_;
  bool flat_ = false;
  const Scope* start_ = nullptr;
  std::set<std::string> expanded_;  // the request's and the dominant groups shown in frames
  bool mergePorts_ = false;         // more than kMaxSeparatePorts values enter: one port per scope
  LevelView level_;
  std::unordered_map<const Scope*, Placement> placements_;
  std::unordered_map<const Scope*, int> clusters_;
  std::unordered_map<const Scope*, size_t> groupItems_;
  std::unordered_map<const Node*, size_t> itemOfNode_;  // every node of the graph; npos: outside
  std::unordered_map<std::string, size_t> terminals_;
  std::map<std::tuple<size_t, size_t, const Value*>, size_t> edgeIndex_;
  std::vector<const Value*> lastValueOfEdge_;
};

}  // namespace

size_t LevelView::nodeItemCount() const {
  size_t count = 0;
  for (const Item& item : items) count += item.kind == ItemKind::Node;
  return count;
}

size_t LevelView::groupItemCount() const {
  size_t count = 0;
  for (const Item& item : items) count += item.kind == ItemKind::Group;
  return count;
}

size_t LevelView::find(std::string_view key) const {
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].key == key) return i;
  }
  return npos;
}

namespace {

// Groups smaller than this are not called repeated blocks: three one-Gather embeddings are alike, but
// saying so tells the reader nothing.
constexpr size_t kMinRepeatedNodes = 4;

// Sets each group's `repeats`: how many groups of the level share its structure (12 transformer layers).
void markRepeatedGroups(LevelView& level, const ScopeTree& scopes) {
  std::vector<Item*> groups;
  std::vector<const Scope*> groupScopes;
  for (Item& item : level.items) {
    const Scope* scope = item.kind == ItemKind::Group ? scopes.find(item.scopePath) : nullptr;
    if (!scope || scope->totalNodes < kMinRepeatedNodes) continue;
    groups.push_back(&item);
    groupScopes.push_back(scope);
  }
  const std::vector<size_t> counts = repeatCounts(groupScopes);
  for (size_t i = 0; i < groups.size(); ++i) groups[i]->repeats = counts[i];
}

}  // namespace

const Scope* effectiveScope(const ScopeTree& tree, std::string_view scopePath) {
  const Scope* scope = tree.find(scopePath);
  while (scope && scope->nodes.empty() && scope->children.size() == 1) scope = scope->children.front().get();
  return scope;
}

Expected<LevelView> buildLevel(const LevelRequest& request, const ScopeTree& scopes,
                               const EdgeLabeler& labeler, const TextWidth& textWidth) {
  if (!request.graph) return makeError("no graph to show");
  const Scope* shown = scopes.find(request.scopePath);
  if (!shown) {
    return makeError("the graph has no scope '" + request.scopePath +
                         "': name a prefix of some node's name, such as '/encoder'",
                     request.graph->name());
  }
  LevelView level = LevelBuilder(request, scopes, *shown, labeler).build();
  markRepeatedGroups(level, scopes);
  for (Item& item : level.items) sizeItem(item, textWidth);
  return level;
}

Expected<LevelView> buildLevel(const LevelRequest& request, const EdgeLabeler& labeler,
                               const TextWidth& textWidth) {
  if (!request.graph) return makeError("no graph to show");
  ScopeTree scopes = ScopeTree::build(*request.graph);
  return buildLevel(request, scopes, labeler, textWidth);
}

}  // namespace onyx::layout
