#pragma once
// Positions of one level, in points with y growing downwards (as Qt draws): the canvas and `onyx render`
// paint from this and nothing else. dot's layouts start at (0, 0); one laid out around an earlier one
// (stable_layout.h) keeps the earlier coordinates, so its bounds may start anywhere.
#include <memory>
#include <vector>

#include "layout/dot_profile.h"
#include "layout/level_view.h"

namespace onyx::layout {

struct Point {
  double x = 0;
  double y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

struct Rect {
  double x = 0;  // left
  double y = 0;  // top
  double width = 0;
  double height = 0;
  double right() const { return x + width; }
  double bottom() const { return y + height; }
  Point center() const { return {x + width / 2, y + height / 2}; }
  bool intersects(const Rect& other) const {
    return x < other.right() && other.x < right() && y < other.bottom() && other.y < bottom();
  }
  friend bool operator==(const Rect&, const Rect&) = default;
};

struct EdgeGeometry {
  // A cubic Bézier spline: start, then (control, control, end) per segment, so 3k+1 points; with straight
  // edges the controls lie on the segment. Starts at the producer's box and ends where the arrow begins.
  std::vector<Point> points;
  bool hasArrow = false;
  Point arrowTip;  // where the arrowhead touches the consumer's box
  friend bool operator==(const EdgeGeometry&, const EdgeGeometry&) = default;
};

// Where a layout job is; progress is reported at each change.
enum class LayoutPhase { Queued, Building, RunningDot, Reading, Done, Cancelled, Failed };
const char* phaseName(LayoutPhase phase);

struct LevelLayout {
  std::shared_ptr<const LevelView> level;  // what the boxes and edges stand for, index for index
  std::vector<Rect> items;                 // parallel to level->items
  std::vector<EdgeGeometry> edges;         // parallel to level->edges
  std::vector<Rect> clusters;              // parallel to level->clusters
  Rect bounds;                             // everything (top-left at (0, 0) when dot laid it out)
  DotProfile profile = DotProfile::Quality;
  double dotSeconds = 0;  // time spent in gvLayout
  size_t keptItems = 0;   // items left where an earlier layout of the level had them; 0 when dot ran
};

}  // namespace onyx::layout
