#pragma once
// The neutral view model of one level of the graph explorer: the boxes and arrows a canvas draws, before
// any positions. A level is a graph (main graph, If/Loop/Scan body or function body) seen from one name
// scope: the scope's nodes, its child scopes as collapsed groups (or expanded inline), graph inputs and
// outputs as terminals, and ports where values cross the scope's boundary. Built on the caller's thread
// from the IR; afterwards it holds no reference the layout thread would follow (the Node/Value pointers
// are for the canvas, on its own thread, to map clicks back to the IR).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/scopes.h"
#include "util/expected.h"

namespace onyx {

class Model;

namespace layout {

enum class ItemKind {
  Node,     // one IR node
  Group,    // a collapsed name scope
  Input,    // a graph input
  Output,   // a graph output
  PortIn,   // a value produced outside the shown scope (or in an enclosing graph) and used inside
  PortOut,  // a value produced inside the shown scope and used outside it
};

// An initializer (or the output of a Constant node) drawn as a compact tag on the node that consumes it.
struct InitializerTag {
  std::string name;
  std::string typeText;  // "float32[64, 3, 7, 7]"
  int inputIndex = 0;
};

// A body the canvas can navigate into: an If/Loop/Scan attribute graph or a model-local function.
struct BodyRef {
  std::string label;  // "then_branch", "body", or the function name
  const Graph* graph = nullptr;
};

struct Item {
  ItemKind kind = ItemKind::Node;
  std::string key;    // stable identity within the level: "n:<node id>", "g:<scope path>", "in:<value>"...
  std::string title;  // op type, scope name or value name
  std::vector<std::string> attributeLines;  // key attributes of a node: "kernel 3×3", "axis 1"
  std::string name;                         // node name, scope path or value name
  const Node* node = nullptr;               // for Node items
  const Value* value = nullptr;             // for terminals and ports
  std::string scopePath;                    // the group's path, or the scope the node lies in
  size_t nodeCount = 0;                     // nodes inside a group
  size_t repeats = 1;  // groups of this level with the group's structure (structureHash), itself included
  std::vector<InitializerTag> initializers;
  std::vector<BodyRef> bodies;
  int cluster = -1;  // index into LevelView::clusters of the innermost expanded scope holding it
  double width = 0;  // box size in points, from the text metrics
  double height = 0;
};

struct Edge {
  size_t from = 0;  // item indices
  size_t to = 0;
  const Value* value = nullptr;  // the first value it carries
  std::string valueName;
  std::string label;        // dtype and shape text, or what the labeler says
  bool unresolved = false;  // some dim is unknown: the view paints it red
  size_t valueCount = 1;    // values merged into this edge (edges between groups carry several)
};

// An expanded scope drawn as a frame around its items.
struct Cluster {
  std::string scopePath;
  std::string title;
  int parent = -1;  // enclosing cluster
};

struct LevelView {
  const Graph* graph = nullptr;
  std::string scopePath;  // "" for the whole graph
  std::vector<Item> items;
  std::vector<Edge> edges;
  std::vector<Cluster> clusters;
  size_t foldedConstants = 0;  // Constant nodes shown as tags, not boxes (nodes shown = node items + these)
  size_t nodeItemCount() const;
  size_t groupItemCount() const;
  // Index of the item with this key, or npos.
  size_t find(std::string_view key) const;
  static constexpr size_t npos = static_cast<size_t>(-1);
};

// Hooks for what edges say: shape inference fills these in; the defaults read the value's declared type.
struct EdgeLabeler {
  std::function<std::string(const Value*)> label;  // default: Type::toString(), "" when untyped
  std::function<bool(const Value*)> unresolved;    // default: a tensor whose rank or some dim is unknown
};

// Measures text for box sizes: the canvas passes its font metrics; the default assumes an 11 pt sans font.
using TextWidth = std::function<double(std::string_view)>;

// Levels up to this many nodes open flat: about what a screen shows legibly, and what dot lays out in
// well under a second.
inline constexpr size_t kDefaultCollapseThreshold = 200;

struct LevelRequest {
  const Graph* graph = nullptr;
  std::string scopePath;                 // show this scope's interior; "" for the whole graph
  std::set<std::string> expandedScopes;  // child scopes shown inline (as frames) instead of collapsed
  // Levels with at most this many nodes show every node of the scope flat; larger ones open collapsed
  // to their top scopes (which ScopeTree keeps under about 200 boxes each). Use expandAll to force the
  // flat view.
  size_t collapseThreshold = kDefaultCollapseThreshold;
  bool expandAll = false;
  const Model* model = nullptr;  // to resolve calls of model-local functions; may be null
};

// The scope that collapsed levels open at: the shown scope itself, or, while it holds a single child scope
// and no nodes of its own, that child (exporters often wrap everything in one "/model" scope).
const Scope* effectiveScope(const ScopeTree& tree, std::string_view scopePath);

// Fails when the request names a scope the graph does not have. `scopes` must be built from request.graph.
Expected<LevelView> buildLevel(const LevelRequest& request, const ScopeTree& scopes,
                               const EdgeLabeler& labeler = {}, const TextWidth& textWidth = {});
// Convenience for callers without a cached ScopeTree.
Expected<LevelView> buildLevel(const LevelRequest& request, const EdgeLabeler& labeler = {},
                               const TextWidth& textWidth = {});

}  // namespace layout
}  // namespace onyx
