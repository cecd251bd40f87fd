#include "layout/layered_layout.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace onyx::layout {
namespace {

// The separations dot gets (dot_profile.cpp: nodesep 0.25 in, ranksep 0.4 in), in points.
constexpr double kItemGap = 18;
constexpr double kRankGap = 29;
constexpr double kClusterMargin = 8;

// Longest-path ranks by Kahn's algorithm. A collapsed level can hold a cycle between groups (A feeds B
// through one value, B feeds A through another): the items left on it are ranked after their ranked
// producers, in level order.
std::vector<size_t> rankItems(const LevelView& level) {
  size_t count = level.items.size();
  std::vector<std::vector<size_t>> consumers(count);
  std::vector<size_t> pending(count, 0);
  for (const Edge& edge : level.edges) {
    if (edge.from == edge.to) continue;
    consumers[edge.from].push_back(edge.to);
    ++pending[edge.to];
  }
  std::vector<size_t> rank(count, 0);
  std::vector<bool> placed(count, false);
  std::queue<size_t> ready;
  for (size_t i = 0; i < count; ++i)
    if (pending[i] == 0) ready.push(i);
  auto drain = [&] {
    while (!ready.empty()) {
      size_t item = ready.front();
      ready.pop();
      placed[item] = true;
      for (size_t consumer : consumers[item]) {
        rank[consumer] = std::max(rank[consumer], rank[item] + 1);
        if (pending[consumer] > 0 && --pending[consumer] == 0) ready.push(consumer);
      }
    }
  };
  drain();
  for (size_t i = 0; i < count; ++i) {
    if (placed[i]) continue;
    pending[i] = 0;  // break the cycle here
    ready.push(i);
    drain();
  }
  return rank;
}

// Straight from the producer's bottom centre to the consumer's top centre, as one cubic segment (the
// shape readEdge gives an edge dot left unrouted).
EdgeGeometry straightEdge(const Rect& from, const Rect& to) {
  Point start{from.center().x, from.bottom()};
  Point end{to.center().x, to.y};
  auto at = [&](double t) { return Point{start.x + (end.x - start.x) * t, start.y + (end.y - start.y) * t}; };
  EdgeGeometry geometry;
  geometry.points = {start, at(1.0 / 3), at(2.0 / 3), end};
  geometry.hasArrow = true;
  geometry.arrowTip = end;
  return geometry;
}

// Each cluster's frame: its items' boxes and its child clusters' frames, with a margin. Children come after
// their parents in the list, so one backward pass folds them in.
std::vector<Rect> clusterFrames(const LevelView& level, const std::vector<Rect>& items) {
  constexpr double kNone = std::numeric_limits<double>::max();
  struct Extent {
    double left = kNone, top = kNone, right = -kNone, bottom = -kNone;
    void add(const Rect& r) {
      left = std::min(left, r.x);
      top = std::min(top, r.y);
      right = std::max(right, r.right());
      bottom = std::max(bottom, r.bottom());
    }
  };
  std::vector<Extent> extents(level.clusters.size());
  for (size_t i = 0; i < items.size(); ++i)
    if (level.items[i].cluster >= 0) extents[size_t(level.items[i].cluster)].add(items[i]);
  std::vector<Rect> frames(level.clusters.size());
  for (size_t c = level.clusters.size(); c-- > 0;) {
    const Extent& e = extents[c];
    frames[c] = e.left == kNone ? Rect{}
                                : Rect{e.left - kClusterMargin, e.top - kClusterMargin,
                                       e.right - e.left + 2 * kClusterMargin, e.bottom - e.top + 2 * kClusterMargin};
    if (int parent = level.clusters[c].parent; parent >= 0 && e.left != kNone) extents[size_t(parent)].add(frames[c]);
  }
  return frames;
}

}  // namespace

LevelLayout layeredLayout(std::shared_ptr<const LevelView> level) {
  const LevelView& view = *level;
  std::vector<size_t> rank = rankItems(view);
  size_t ranks = 0;
  for (size_t r : rank) ranks = std::max(ranks, r + 1);
  std::vector<double> rankHeight(ranks, 0), rankWidth(ranks, 0);
  for (size_t i = 0; i < view.items.size(); ++i) {
    rankHeight[rank[i]] = std::max(rankHeight[rank[i]], view.items[i].height);
    rankWidth[rank[i]] += view.items[i].width + kItemGap;
  }
  double widest = ranks == 0 ? 0 : *std::max_element(rankWidth.begin(), rankWidth.end());
  std::vector<double> rankTop(ranks, kClusterMargin);
  for (size_t r = 1; r < ranks; ++r) rankTop[r] = rankTop[r - 1] + rankHeight[r - 1] + kRankGap;
  // Each rank is centred under the widest one.
  std::vector<double> nextLeft(ranks);
  for (size_t r = 0; r < ranks; ++r) nextLeft[r] = kClusterMargin + (widest - rankWidth[r]) / 2;

  LevelLayout layout;
  layout.items.resize(view.items.size());
  for (size_t i = 0; i < view.items.size(); ++i) {
    const Item& item = view.items[i];
    size_t r = rank[i];
    layout.items[i] = {nextLeft[r], rankTop[r] + (rankHeight[r] - item.height) / 2, item.width, item.height};
    nextLeft[r] += item.width + kItemGap;
  }
  layout.edges.reserve(view.edges.size());
  for (const Edge& edge : view.edges) layout.edges.push_back(straightEdge(layout.items[edge.from], layout.items[edge.to]));
  layout.clusters = clusterFrames(view, layout.items);
  double right = 0, bottom = 0;
  for (const Rect& r : layout.items) {
    right = std::max(right, r.right());
    bottom = std::max(bottom, r.bottom());
  }
  for (const Rect& r : layout.clusters) {
    right = std::max(right, r.right());
    bottom = std::max(bottom, r.bottom());
  }
  layout.bounds = {0, 0, right + kClusterMargin, bottom + kClusterMargin};
  layout.profile = DotProfile::Layered;
  layout.level = std::move(level);
  return layout;
}

}  // namespace onyx::layout
