// GraphCanvas's navigation: which level is asked for (scopes entered or expanded in place, bodies entered,
// the breadcrumb), how the frames follow edits, and focusing a node or value from another view.
#include <algorithm>

#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "ir/model.h"
#include "ir/scopes.h"

namespace onyx::views {
namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// Whether a node in scope `nodeScope` lies in the scope `shown` or below it.
bool scopeHolds(std::string_view shown, std::string_view nodeScope) {
  if (shown.empty()) return true;
  return nodeScope == shown || (nodeScope.size() > shown.size() &&
                                nodeScope.substr(0, shown.size()) == shown && nodeScope[shown.size()] == '/');
}

QString lastComponent(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return qs(slash == std::string::npos ? path : path.substr(slash + 1));
}

}  // namespace

const Graph* GraphCanvas::bodyGraph(const Node& owner, int body) const {
  std::vector<Graph*> graphs = owner.subgraphs();
  if (body >= 0 && static_cast<size_t>(body) < graphs.size()) return graphs[static_cast<size_t>(body)];
  if (document_ && static_cast<size_t>(body) == graphs.size()) {
    const Function* function =
        document_->model().findFunction(owner.domain(), owner.opType(), owner.overload());
    if (function) return function->body.get();
  }
  return nullptr;
}

LevelFrame GraphCanvas::bodyFrame(const Node& owner, int body) const {
  LevelFrame frame;
  frame.graph = bodyGraph(owner, body);
  frame.owner = owner.id();
  frame.body = body;
  std::vector<Graph*> graphs = owner.subgraphs();
  QString what;
  if (static_cast<size_t>(body) < graphs.size()) {
    int index = 0;
    for (const Attribute& attribute : owner.attributes()) {
      for (size_t i = 0; i < attribute.subgraphs().size(); ++i, ++index) {
        if (index == body) what = qs(attribute.name());
      }
    }
  } else {
    what = tr("function");
  }
  QString node =
      owner.name().empty() ? qs(owner.opType()) : qs(owner.opType()) + " " + lastComponent(owner.name());
  frame.label = node + ": " + what;
  return frame;
}

void GraphCanvas::enterScope(const QString& scopePath) {
  if (frames_.empty()) return;
  LevelFrame frame;
  frame.graph = frames_.back().graph;
  frame.scopePath = scopePath.toStdString();
  frame.label = lastComponent(frame.scopePath);
  frames_.push_back(frame);
  fitAfterLayout_ = true;
  requestLevel();
}

void GraphCanvas::expandInPlace(const QString& scopePath) {
  if (frames_.empty()) return;
  frames_.back().expanded.insert(scopePath.toStdString());
  frames_.back().revealed.erase(scopePath.toStdString());  // asked for: it stays open
  requestLevel();
}

void GraphCanvas::collapse(const QString& scopePath) {
  if (frames_.empty()) return;
  const std::string path = scopePath.toStdString();
  LevelFrame& frame = frames_.back();
  if (frame.expanded.contains(path)) {
    std::erase_if(frame.expanded, [&](const std::string& expanded) { return scopeHolds(path, expanded); });
    std::erase_if(frame.revealed, [&](const std::string& revealed) { return scopeHolds(path, revealed); });
    requestLevel();
  } else if (frame.isScopeFrame() && frame.scopePath == path) {
    back();
  }
}

bool GraphCanvas::enterBody(NodeId nodeId, int index) {
  if (frames_.empty()) return false;
  const Node* node = frames_.back().graph->findNode(nodeId);
  if (!node || !bodyGraph(*node, index)) return false;
  frames_.push_back(bodyFrame(*node, index));
  fitAfterLayout_ = true;
  requestLevel();
  return true;
}

void GraphCanvas::navigateTo(int index) {
  if (index < 0 || static_cast<size_t>(index) + 1 >= frames_.size()) return;
  frames_.resize(static_cast<size_t>(index) + 1);
  fitAfterLayout_ = true;
  requestLevel();
}

void GraphCanvas::back() {
  navigateTo(static_cast<int>(frames_.size()) - 2);
}

void GraphCanvas::resolveFrames() {
  if (!document_ || frames_.empty()) return;
  frames_.front().graph = &document_->model().graph();
  for (size_t i = 1; i < frames_.size(); ++i) {
    LevelFrame& frame = frames_[i];
    const Graph* previous = frames_[i - 1].graph;
    if (frame.owner != kNoNode) {
      const Node* owner = previous->findNode(frame.owner);
      frame.graph = owner ? bodyGraph(*owner, frame.body) : nullptr;
      if (frame.graph) frame.label = bodyFrame(*owner, frame.body).label;
    } else {
      frame.graph = previous;
      if (!scopeTreeOf(*previous).find(frame.scopePath)) frame.graph = nullptr;
    }
    if (!frame.graph) {
      frames_.resize(i);
      break;
    }
  }
}

// The frames from the main graph to `graph`: through the bodies that hold it, or a call of the function
// whose body it is.
std::vector<LevelFrame> GraphCanvas::framesTo(const Graph& graph) const {
  std::vector<std::pair<const Node*, int>> steps;  // innermost first
  const Graph* walk = &graph;
  while (walk && walk->owner()) {
    const Node* owner = walk->owner();
    std::vector<Graph*> graphs = owner->subgraphs();
    int index = static_cast<int>(std::find(graphs.begin(), graphs.end(), walk) - graphs.begin());
    steps.emplace_back(owner, index);
    walk = owner->graph();
  }
  const Graph& main = document_->model().graph();
  if (walk != &main) {
    // A function body: enter it from its first call in the main graph.
    const Node* call = nullptr;
    for (const Node* node : main.nodes()) {
      const Function* function =
          document_->model().findFunction(node->domain(), node->opType(), node->overload());
      if (function && function->body.get() == walk) {
        call = node;
        break;
      }
    }
    if (!call) return {};
    steps.emplace_back(call, static_cast<int>(call->subgraphs().size()));
  }
  std::vector<LevelFrame> frames{frames_.front()};
  frames.front().scopePath.clear();
  frames.front().graph = &main;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    frames.push_back(bodyFrame(*it->first, it->second));
  return frames;
}

void GraphCanvas::focusOn(const Selection& selection) {
  if (!document_ || frames_.empty() || selection.empty()) return;
  const Graph* graph = selection.graph ? selection.graph : &document_->model().graph();
  const Node* node = selection.node != kNoNode ? graph->findNode(selection.node) : nullptr;
  for (LevelFrame& frame : frames_) {  // close what the previous focus opened
    for (const std::string& path : frame.revealed) frame.expanded.erase(path);
    frame.revealed.clear();
  }
  if (!node && selection.value && selection.value->producer() &&
      selection.value->producer()->graph() == graph) {
    node = selection.value->producer();
  }
  if (frames_.back().graph != graph) {
    std::vector<LevelFrame> path = framesTo(*graph);
    if (path.empty()) return;
    // Keep the current frames when they already lead into that graph (only scope frames differ).
    size_t keep = 0;
    for (size_t i = 0; i < frames_.size(); ++i) {
      if (frames_[i].graph == graph && !frames_[i].isScopeFrame()) keep = i + 1;
    }
    if (keep) {
      frames_.resize(keep);
    } else {
      frames_ = path;
    }
  }
  if (node) {
    std::string nodeScope(node->scopePath());
    const ScopeTree& tree = scopeTreeOf(*graph);
    if (const Scope* scope = tree.scopeOf(node->id())) nodeScope = scope->path;
    while (frames_.size() > 1 && frames_.back().isScopeFrame() &&
           !scopeHolds(frames_.back().scopePath, nodeScope)) {
      frames_.pop_back();
    }
    LevelFrame& frame = frames_.back();
    const Scope* shown = tree.find(frame.scopePath);
    bool flat = frame.expandAll || (shown && shown->totalNodes <= collapseThreshold_);
    if (!flat) {
      const Scope* start = layout::effectiveScope(tree, frame.scopePath);
      for (const Scope* walk = tree.scopeOf(node->id()); walk && walk != start; walk = walk->parent) {
        if (frame.expanded.insert(walk->path).second) frame.revealed.insert(walk->path);
      }
    }
  }
  bool same = frames_.size() == shownFrames_.size() && !isLayingOut();
  for (size_t i = 0; same && i < frames_.size(); ++i) {
    same = frames_[i].graph == shownFrames_[i].graph && frames_[i].scopePath == shownFrames_[i].scopePath &&
           frames_[i].expanded == shownFrames_[i].expanded;
  }
  if (same && centreOn(selection)) return;
  pendingFocus_ = selection;
  requestLevel();
}

bool GraphCanvas::centreOn(const Selection& selection) {
  const Graph* graph =
      selection.graph ? selection.graph : (document_ ? &document_->model().graph() : nullptr);
  if (!shown_ || shown_->level->graph != graph) return false;
  if (selection.node != kNoNode) {
    if (BoxItem* box = scene_->boxForNode(selection.node)) {
      view_->centerOnRect(box->box());
      return true;
    }
  }
  if (selection.value) {
    std::vector<EdgeItem*> edges = scene_->edgesForValue(selection.value);
    if (!edges.empty()) {
      view_->centerOnRect(edges.front()->boundingRect());
      return true;
    }
    if (const Node* producer = selection.value->producer()) {
      if (BoxItem* box = scene_->boxForNode(producer->id())) {
        view_->centerOnRect(box->box());
        return true;
      }
    }
  }
  return false;
}

}  // namespace onyx::views
