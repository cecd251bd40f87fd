#include "layout/stable_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

namespace onyx::layout {
namespace {

// dot's defaults, in points: the gap between ranks (ranksep 0.5 in), between boxes of one rank (nodesep
// 0.25 in), and an arrowhead's length (arrowsize 1).
constexpr double kRankGap = 36;
constexpr double kBoxGap = 18;
constexpr double kArrowLength = 10;
constexpr double kFramePadding = 8;
constexpr double kSizeSlack = 1;
// Sideways steps tried on each side of a new item's ideal spot before it goes past everything.
constexpr int kSidewaysTries = 40;

Rect centredAt(Point centre, double width, double height) {
  return {centre.x - width / 2, centre.y - height / 2, width, height};
}

Rect inflated(const Rect& r, double by) {
  return {r.x - by, r.y - by, r.width + 2 * by, r.height + 2 * by};
}

Rect united(const Rect& a, const Rect& b) {
  double left = std::min(a.x, b.x), top = std::min(a.y, b.y);
  return {left, top, std::max(a.right(), b.right()) - left, std::max(a.bottom(), b.bottom()) - top};
}

Rect unitedWith(const Rect& a, const Point& p) {
  return united(a, Rect{p.x, p.y, 0, 0});
}

// Identity of an edge across two builds of a level: its ends' keys and the value it carries.
std::string edgeKey(const LevelView& level, const Edge& edge) {
  return level.items[edge.from].key + '\n' + level.items[edge.to].key + '\n' + edge.valueName;
}

// The boxes a direct curve from `start` down to `end` would cross: how far right they reach, where the
// first begins and the last ends.
struct Blockers {
  double right = 0, top = 0, bottom = 0;
};
std::optional<Blockers> blockersBetween(Point start, Point end, const std::vector<Rect>& boxes) {
  std::optional<Blockers> found;
  const double low = std::min(start.x, end.x), high = std::max(start.x, end.x);
  for (const Rect& box : boxes) {
    if (box.bottom() <= start.y || box.y >= end.y || box.right() < low || box.x > high) continue;
    if (!found) found = Blockers{box.right(), box.y, box.bottom()};
    found->right = std::max(found->right, box.right());
    found->top = std::min(found->top, box.y);
    found->bottom = std::max(found->bottom, box.bottom());
  }
  return found;
}

// A new edge's route: an S-curve from the producer's bottom to the consumer's top when the consumer lies
// below (as dot draws them), passing right of the boxes in between as dot routes skip connections; else a
// straight curve between the facing sides.
EdgeGeometry route(const Rect& from, const Rect& to, const std::vector<Rect>& boxes) {
  EdgeGeometry geometry;
  geometry.hasArrow = true;
  Point start{from.center().x, from.bottom()};
  Point tip{to.center().x, to.y};
  if (to.y >= from.bottom() + kArrowLength) {
    Point end{tip.x, tip.y - kArrowLength};
    double middle = (start.y + end.y) / 2;
    geometry.arrowTip = tip;
    if (std::optional<Blockers> blocked = blockersBetween(start, end, boxes)) {
      // Out sideways in the gap below the producer, down past the boxes' right side, back in the gap above
      // the consumer: each segment's control points stay inside its gap, and so does the curve.
      const double x = blocked->right + kBoxGap;
      const double out = start.y + 0.8 * std::clamp(blocked->top - start.y, 0.0, kRankGap);
      const double back = end.y - 0.8 * std::clamp(end.y - blocked->bottom, 0.0, kRankGap);
      const double outMiddle = (start.y + out) / 2, backMiddle = (back + end.y) / 2;
      geometry.points = {start,
                         {start.x, outMiddle}, {x, outMiddle}, {x, out},
                         {x, out + (back - out) / 3}, {x, back - (back - out) / 3}, {x, back},
                         {x, backMiddle}, {end.x, backMiddle}, end};
      return geometry;
    }
    geometry.points = {start, {start.x, middle}, {end.x, middle}, end};
    return geometry;
  }
  if (to.x >= from.right()) {
    start = {from.right(), from.center().y};
    tip = {to.x, to.center().y};
  } else if (to.right() <= from.x) {
    start = {from.x, from.center().y};
    tip = {to.right(), to.center().y};
  } else {
    start = {from.center().x, from.y};
    tip = {to.center().x, to.bottom()};
  }
  double dx = tip.x - start.x, dy = tip.y - start.y;
  double length = std::max(std::hypot(dx, dy), 1e-9);
  double shortened = std::max(length - kArrowLength, 0.0) / length;
  Point end{start.x + dx * shortened, start.y + dy * shortened};
  auto at = [&](double t) { return Point{start.x + (end.x - start.x) * t, start.y + (end.y - start.y) * t}; };
  geometry.points = {start, at(1.0 / 3), at(2.0 / 3), end};
  geometry.arrowTip = tip;
  return geometry;
}

// An old route bent to new ends: the first point and its control move with the start, the last point, its
// control and the arrow tip with the end, so the curve keeps its course in between.
EdgeGeometry bent(EdgeGeometry geometry, Point start, Point tip) {
  if (geometry.points.size() < 4) return geometry;
  const Point from = geometry.points.front();
  const Point to = geometry.hasArrow ? geometry.arrowTip : geometry.points.back();
  auto shift = [](Point& p, double dx, double dy) { p = {p.x + dx, p.y + dy}; };
  const size_t last = geometry.points.size() - 1;
  shift(geometry.points[0], start.x - from.x, start.y - from.y);
  shift(geometry.points[1], start.x - from.x, start.y - from.y);
  shift(geometry.points[last], tip.x - to.x, tip.y - to.y);
  shift(geometry.points[last - 1], tip.x - to.x, tip.y - to.y);
  if (geometry.hasArrow) geometry.arrowTip = tip;
  return geometry;
}

// Where a route leaves a box and where its arrow ends on one: bottom and top centre, as dot draws them.
Point exitOf(const Rect& box) {
  return {box.center().x, box.bottom()};
}
Point entryOf(const Rect& box) {
  return {box.center().x, box.y};
}

// Each edge's route: the old one where neither end moved; an old route of the same value from the same
// (unmoved) producer whose consumer is gone, bent to the new consumer, or to the same (unmoved) consumer
// from a producer that is gone, bent from the new producer (a fused node takes over its parts' edges and
// their courses around other boxes); else a new curve.
std::vector<EdgeGeometry> keptRoutes(const LevelLayout& previous, const LevelView& level,
                                     const std::vector<Rect>& boxes) {
  const LevelView& before = *previous.level;
  std::unordered_map<std::string, size_t> exact;
  std::unordered_multimap<std::string, size_t> byProducer, byConsumer;
  std::unordered_map<std::string_view, size_t> now;
  for (size_t i = 0; i < level.items.size(); ++i) now.emplace(level.items[i].key, i);
  for (size_t i = 0; i < before.edges.size(); ++i) {
    const Edge& edge = before.edges[i];
    const std::string& from = before.items[edge.from].key;
    const std::string& to = before.items[edge.to].key;
    exact.emplace(edgeKey(before, edge), i);
    if (!now.count(to)) byProducer.emplace(from + '\n' + edge.valueName, i);
    if (!now.count(from)) byConsumer.emplace(to + '\n' + edge.valueName, i);
  }
  auto unmoved = [&](size_t oldItem, size_t newItem) { return previous.items[oldItem] == boxes[newItem]; };
  std::vector<bool> used(before.edges.size(), false);
  std::vector<EdgeGeometry> routes;
  routes.reserve(level.edges.size());
  for (const Edge& edge : level.edges) {
    const Rect& from = boxes[edge.from];
    const Rect& to = boxes[edge.to];
    auto found = exact.find(edgeKey(level, edge));
    if (found != exact.end() && unmoved(before.edges[found->second].from, edge.from) &&
        unmoved(before.edges[found->second].to, edge.to)) {
      used[found->second] = true;
      routes.push_back(previous.edges[found->second]);
      continue;
    }
    std::optional<size_t> course;
    auto [p, pEnd] = byProducer.equal_range(level.items[edge.from].key + '\n' + edge.valueName);
    for (; p != pEnd && !course; ++p)
      if (!used[p->second] && unmoved(before.edges[p->second].from, edge.from)) course = p->second;
    auto [c, cEnd] = byConsumer.equal_range(level.items[edge.to].key + '\n' + edge.valueName);
    for (; c != cEnd && !course; ++c)
      if (!used[c->second] && unmoved(before.edges[c->second].to, edge.to)) course = c->second;
    if (course && to.y >= from.bottom()) {
      used[*course] = true;
      routes.push_back(bent(previous.edges[*course], exitOf(from), entryOf(to)));
    } else {
      routes.push_back(route(from, to, boxes));
    }
  }
  return routes;
}

// The boxes placed so far, for finding a free spot for each new one.
class Placement {
 public:
  explicit Placement(size_t items) : boxes_(items), placed_(items, false) {}
  bool placed(size_t item) const { return placed_[item]; }
  const Rect& box(size_t item) const { return boxes_[item]; }
  void place(size_t item, const Rect& box) {
    boxes_[item] = box;
    placed_[item] = true;
    extent_ = any_ ? united(extent_, box) : box;
    any_ = true;
  }
  bool isFree(const Rect& box, size_t except) const {
    const Rect wanted = inflated(box, kBoxGap / 2);
    for (size_t i = 0; i < boxes_.size(); ++i)
      if (placed_[i] && i != except && wanted.intersects(boxes_[i])) return false;
    return true;
  }
  // The first free spot for a box of this size at `ideal`, then stepping sideways, alternating sides;
  // past everything on the right when none is free.
  Rect freeSpot(Point ideal, double width, double height) const {
    const double step = (width + kBoxGap) / 2;
    for (int k = 0; k <= 2 * kSidewaysTries; ++k) {
      double offset = step * ((k + 1) / 2) * (k % 2 ? 1 : -1);
      Rect box = centredAt({ideal.x + offset, ideal.y}, width, height);
      if (isFree(box, kNone)) return box;
    }
    return {extent_.right() + kBoxGap, ideal.y - height / 2, width, height};
  }
  const Rect& extent() const { return extent_; }

  static constexpr size_t kNone = static_cast<size_t>(-1);

 private:
  std::vector<Rect> boxes_;
  std::vector<bool> placed_;
  Rect extent_;
  bool any_ = false;
};

// Where a new item goes: between its placed producers and consumers, at the mean of their centres across.
Point idealSpot(const Placement& placement, const std::vector<size_t>& producers,
                const std::vector<size_t>& consumers, const Item& item) {
  double sumX = 0, lowest = -std::numeric_limits<double>::infinity();
  double highest = std::numeric_limits<double>::infinity();
  size_t neighbours = 0;
  for (size_t p : producers) {
    if (!placement.placed(p)) continue;
    sumX += placement.box(p).center().x;
    lowest = std::max(lowest, placement.box(p).bottom());
    ++neighbours;
  }
  const size_t placedProducers = neighbours;
  for (size_t c : consumers) {
    if (!placement.placed(c)) continue;
    sumX += placement.box(c).center().x;
    highest = std::min(highest, placement.box(c).y);
    ++neighbours;
  }
  const Rect& extent = placement.extent();
  if (neighbours == 0) return {extent.x + item.width / 2, extent.bottom() + kRankGap + item.height / 2};
  double x = sumX / double(neighbours);
  if (placedProducers > 0 && neighbours > placedProducers) return {x, (lowest + highest) / 2};
  if (placedProducers > 0) return {x, lowest + kRankGap + item.height / 2};
  return {x, highest - kRankGap - item.height / 2};
}

struct ItemNeighbours {
  std::vector<std::vector<size_t>> producers, consumers;
};

ItemNeighbours neighboursOf(const LevelView& level) {
  ItemNeighbours out;
  out.producers.resize(level.items.size());
  out.consumers.resize(level.items.size());
  for (const Edge& edge : level.edges) {
    out.producers[edge.to].push_back(edge.from);
    out.consumers[edge.from].push_back(edge.to);
  }
  return out;
}

// Places the items the previous layout does not have, those next to placed ones first, so a chain of new
// items grows out from what stayed.
void placeNewItems(const LevelView& level, Placement& placement, std::vector<size_t> pending) {
  const ItemNeighbours neighbours = neighboursOf(level);
  auto touchesPlaced = [&](size_t item) {
    auto placed = [&](size_t other) { return placement.placed(other); };
    return std::any_of(neighbours.producers[item].begin(), neighbours.producers[item].end(), placed) ||
           std::any_of(neighbours.consumers[item].begin(), neighbours.consumers[item].end(), placed);
  };
  while (!pending.empty()) {
    auto next = std::find_if(pending.begin(), pending.end(), touchesPlaced);
    if (next == pending.end()) next = pending.begin();  // an island of new items: below everything
    const size_t item = *next;
    pending.erase(next);
    const Item& shown = level.items[item];
    Point ideal = idealSpot(placement, neighbours.producers[item], neighbours.consumers[item], shown);
    placement.place(item, placement.freeSpot(ideal, shown.width, shown.height));
  }
}

}  // namespace

std::optional<LevelLayout> layoutAround(const LevelLayout& previous, std::shared_ptr<const LevelView> level,
                                        const StablePolicy& policy) {
  if (!previous.level || !level) return std::nullopt;
  const LevelView& before = *previous.level;
  std::unordered_map<std::string_view, size_t> beforeItems;
  for (size_t i = 0; i < before.items.size(); ++i) beforeItems.emplace(before.items[i].key, i);
  std::unordered_map<std::string_view, size_t> beforeClusters;
  for (size_t i = 0; i < before.clusters.size(); ++i) beforeClusters.emplace(before.clusters[i].scopePath, i);
  for (const Cluster& cluster : level->clusters)
    if (!beforeClusters.count(cluster.scopePath)) return std::nullopt;  // a new frame: dot draws it better

  // Kept items stay where they were (a box that grew stays centred on its old centre); any that now
  // overlaps another is placed afresh with the new ones.
  const size_t n = level->items.size();
  Placement placement(n);
  std::vector<size_t> fresh, grown;
  for (size_t i = 0; i < n; ++i) {
    const Item& item = level->items[i];
    auto found = beforeItems.find(item.key);
    if (found == beforeItems.end()) {
      fresh.push_back(i);
      continue;
    }
    const Rect& old = previous.items[found->second];
    // dot rounds box sizes to whole points (214.4 laid out as 214): within a point is the same box. A box
    // that got smaller keeps its laid-out size, as a patch does.
    if (item.width <= old.width + kSizeSlack && item.height <= old.height + kSizeSlack) {
      placement.place(i, old);
    } else {
      grown.push_back(i);
    }
  }
  for (size_t i : grown) {
    const Item& item = level->items[i];
    Rect box = centredAt(previous.items[beforeItems.at(item.key)].center(), item.width, item.height);
    if (placement.isFree(box, i)) {
      placement.place(i, box);
    } else {
      fresh.push_back(i);
    }
  }
  const size_t kept = n - fresh.size();
  const size_t allowed = std::min(
      policy.maxNewItems, std::max(policy.alwaysAllowedNew, size_t(policy.maxNewShare * double(n))));
  if (kept == 0 || fresh.size() > allowed) return std::nullopt;
  std::sort(fresh.begin(), fresh.end());  // level order: producers before consumers on the whole
  placeNewItems(*level, placement, std::move(fresh));

  LevelLayout layout;
  layout.profile = previous.profile;
  layout.keptItems = kept;
  layout.items.reserve(n);
  for (size_t i = 0; i < n; ++i) layout.items.push_back(placement.box(i));

  layout.edges = keptRoutes(previous, *level, layout.items);
  // Frames keep their old extent and grow to hold their items; parents come before children, so children
  // are folded into their parents walking backwards.
  layout.clusters.resize(level->clusters.size());
  for (size_t c = 0; c < level->clusters.size(); ++c)
    layout.clusters[c] = previous.clusters[beforeClusters.at(level->clusters[c].scopePath)];
  for (size_t i = 0; i < n; ++i) {
    int c = level->items[i].cluster;
    if (c >= 0) layout.clusters[size_t(c)] = united(layout.clusters[size_t(c)], inflated(layout.items[i], kFramePadding));
  }
  for (size_t c = level->clusters.size(); c-- > 0;) {
    int parent = level->clusters[c].parent;
    if (parent >= 0)
      layout.clusters[size_t(parent)] =
          united(layout.clusters[size_t(parent)], inflated(layout.clusters[c], kFramePadding));
  }

  Rect bounds = placement.extent();
  for (const Rect& frame : layout.clusters) bounds = united(bounds, frame);
  for (const EdgeGeometry& edge : layout.edges) {
    for (const Point& p : edge.points) bounds = unitedWith(bounds, p);
    if (edge.hasArrow) bounds = unitedWith(bounds, edge.arrowTip);
  }
  layout.bounds = bounds;
  layout.level = std::move(level);
  return layout;
}

}  // namespace onyx::layout
