// GraphCanvas's answer to edits: one decision per burst of change events (level_patch.h says how).
#include <algorithm>

#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/level_patch.h"
#include "graph/level_source.h"
#include "ir/scopes.h"

namespace onyx::views {
namespace {

// Whether the event can change a graph's name scopes: a ScopeTree holds node pointers grouped by name.
bool changesScopes(const ChangeEvent& event) {
  switch (event.kind) {
    case ChangeEvent::Kind::NodeAdded:
    case ChangeEvent::Kind::NodeRemoved:
    case ChangeEvent::Kind::NodeRenamed:
    case ChangeEvent::Kind::FunctionAdded:
    case ChangeEvent::Kind::FunctionRemoved:
      return true;
    default:
      return false;
  }
}

// Whether both name the same level: the same graphs, scopes and expansions, step by step.
bool sameLevels(const std::vector<LevelFrame>& a, const std::vector<LevelFrame>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const LevelFrame& x, const LevelFrame& y) {
    return x.graph == y.graph && x.scopePath == y.scopePath && x.expanded == y.expanded &&
           x.expandAll == y.expandAll;
  });
}

// Whether both name corresponding levels of two models (the diff window's sides): the same bodies, scopes
// and expansions, step by step.
bool correspondingLevels(const std::vector<LevelFrame>& a, const std::vector<LevelFrame>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const LevelFrame& x, const LevelFrame& y) {
    return x.owner == y.owner && x.body == y.body && x.scopePath == y.scopePath && x.expanded == y.expanded &&
           x.expandAll == y.expandAll;
  });
}

}  // namespace

std::shared_ptr<const layout::LevelLayout> GraphCanvas::layoutToKeep() const {
  if (shown_ && sameLevels(frames_, shownFrames_)) return shown_;
  if (leader_ && leader_ != this && leader_->shown_ && correspondingLevels(frames_, leader_->shownFrames_))
    return leader_->shown_;
  return nullptr;
}

void GraphCanvas::onChangesSettled(const std::vector<ChangeEvent>& events) {
  if (!document_ || frames_.empty()) return;
  // Cached layouts of other levels may show what changed: whatever is asked for next is laid out afresh, as
  // the cache is keyed by the edit revision (the shown level, when patched, is on screen and needs no entry).
  if (std::any_of(events.begin(), events.end(), changesScopes)) scopeTrees_.clear();
  resolveFrames();
  updateChrome();
  // A layout on its way was built from the IR before these edits, and frames that lost their graph (a
  // body whose node was removed) name another level: either way the level is asked for again.
  if (!shown_ || isLayingOut() || !sameLevels(frames_, shownFrames_)) {
    requestLevel();
    return;
  }
  switch (impactOn(events, *shown_->level->graph)) {
    case LevelImpact::None:
      return;
    case LevelImpact::Relabel:
      if (patchShownLevel()) return;
      break;  // the structure changed after all (an initializer added, a node renamed into another scope)
    case LevelImpact::Relayout:
      break;
  }
  requestLevel();
}

bool GraphCanvas::patchShownLevel() {
  const layout::LevelRequest request = levelRequest();
  // Building the level reads the IR on this thread, as requestLevel does before every layout; it costs a
  // small part of what dot costs for the same level.
  auto level = buildStyledLevel(request, scopeTreeOf(*request.graph), &document_->shapes());
  if (!level) return false;
  std::shared_ptr<const layout::LevelLayout> patched = patchedLayout(*shown_, *level);
  if (!patched) return false;
  shown_ = std::move(patched);
  const size_t changed = scene_->patchLevel(shown_, edgeLabelsFrom(*document_));
  ++patches_;
  updateChrome();
  Q_EMIT levelPatched(changed);
  return true;
}

}  // namespace onyx::views
