// What one rewrite touched (rewriter.h's beginRewrite/endRewrite), and the one edit provenance needs.
#include <algorithm>
#include <set>

#include "ir/rewriter.h"

namespace onyx {

namespace {
NodeOrigin originOf(const Node& node) {
  return {node.id(), node.opType(), node.name()};
}
}  // namespace

struct Rewriter::Tracker {
  std::vector<TouchedNode> removed;
  std::vector<Node*> added;                      // in the order added; erased when removed again
  std::vector<Node*> modified;                   // nodes that were there before the rewrite
  std::set<std::pair<NodeId, Node*>> takeovers;  // (producer of the replaced value, producer of the new one)
  int rewiring = 0;  // inside replaceAllUsesWith: its setInput calls rewire consumers, they modify nothing
};

void Rewriter::beginRewrite() {
  tracker_ = std::make_shared<Tracker>();
}

void Rewriter::trackAdded(Node* node) {
  if (tracker_) tracker_->added.push_back(node);
}

void Rewriter::trackRemoved(Node* node) {
  if (!tracker_) return;
  auto& added = tracker_->added;
  if (auto it = std::find(added.begin(), added.end(), node); it != added.end()) {
    added.erase(it);  // made and dropped within the rewrite: neither added nor removed
    return;
  }
  auto& modified = tracker_->modified;
  modified.erase(std::remove(modified.begin(), modified.end(), node), modified.end());
  tracker_->removed.push_back({originOf(*node), nullptr, node->graph(), node->unknownFields()});
}

void Rewriter::trackModified(Node* node) {
  if (!tracker_ || tracker_->rewiring > 0) return;
  auto& added = tracker_->added;
  auto& modified = tracker_->modified;
  if (std::find(added.begin(), added.end(), node) != added.end()) return;
  if (std::find(modified.begin(), modified.end(), node) == modified.end()) modified.push_back(node);
}

void Rewriter::trackRewiring(const Value* from, const Value* to, bool starting) {
  if (!tracker_) return;
  tracker_->rewiring += starting ? 1 : -1;
  if (starting && from->producer() && to && to->producer())
    tracker_->takeovers.insert({from->producer()->id(), to->producer()});
}

Rewriter::RewriteEdits Rewriter::endRewrite() {
  RewriteEdits edits;
  std::shared_ptr<Tracker> tracker = std::move(tracker_);
  if (!tracker) return edits;
  edits.removed = std::move(tracker->removed);
  for (Node* node : tracker->added) edits.added.push_back({originOf(*node), node, node->graph(), {}});
  for (Node* node : tracker->modified) {
    bool tookOver = false;
    for (const TouchedNode& removed : edits.removed)
      tookOver = tookOver || tracker->takeovers.count({removed.node.id, node});
    edits.modified.push_back({originOf(*node), node, node->graph(), {}, tookOver});
  }
  return edits;
}

void Rewriter::setUnknownFields(Node* node, std::string unknownFields) {
  auto old = std::make_shared<std::string>(node->unknownFields_);
  auto fresh = std::make_shared<std::string>(std::move(unknownFields));
  Model* model = model_;
  auto assign = [node, model](const std::string& value, bool undoing) {
    node->unknownFields_ = value;
    model->emit({ChangeEvent::Kind::AttributeChanged, node->graph_, node->id_, "metadata_props", undoing});
  };
  record({[=](bool) { assign(*fresh, false); }, [=] { assign(*old, true); }});
}

}  // namespace onyx
