// NonMaxSuppression: per batch and class, greedy selection by score (ties: lower box index first) with
// IoU suppression; boxes as corners or centers.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "exec/kernel_util.h"
#include "util/ordered_float.h"

namespace onyx::exec {
namespace {

struct Box {
  double x0, y0, x1, y1, area;
};

bool overlapsOver(const Box& a, const Box& o, double iouThreshold) {
  double iw = std::max(0.0, std::min(a.x1, o.x1) - std::max(a.x0, o.x0));
  double ih = std::max(0.0, std::min(a.y1, o.y1) - std::max(a.y0, o.y0));
  double inter = iw * ih;
  double uni = a.area + o.area - inter;
  return uni > 0 && inter / uni > iouThreshold;
}

// How far apart the centres of two boxes can be, along one axis, while their IoU exceeds t >= 0: one of
// extent `a` and one of any extent up to `widest`. IoU > t needs the overlap along the axis above
// t * max(a, o) (the intersection is at most that overlap times the smaller other extent, the union at least
// the larger area), and the overlap is at most (a + o) / 2 minus the centres' distance. That bound rises
// with o up to o = a and is linear beyond, so its largest value is at o = a or widest.
double centreReach(double a, double widest, double t) {
  auto bound = [&](double o) { return (a + o) / 2 - t * std::max(a, o); };
  return std::max(bound(std::min(a, widest)), bound(widest));
}

// The boxes kept so far, bucketed by the x of their centres, each bucket sorted by the centres' y. A
// candidate is compared only with the kept boxes whose centres lie within centreReach of its own in both
// axes; the others cannot reach the threshold. torchvision's batched NMS offsets each class's boxes apart and
// sends tens of thousands of boxes as one class (ssdlite: 27,000 boxes, 15,060 kept): every candidate meeting
// every kept box took 330 ms per call, buckets over the boxes' x ranges 28 ms, the centres' reach 6 ms.
// The IoU of the boxes compared is the plain loop's, so the selection is the same. Thresholds below 0 (every
// pair suppresses), few boxes and non-finite coordinates keep one plain list.
class KeptBoxes {
 public:
  KeptBoxes(const std::vector<Box>& all, const std::vector<int64_t>& candidates, double iouThreshold)
      : threshold_(iouThreshold) {
    if (!(iouThreshold >= 0) || candidates.size() < 64) return;  // plain list
    double lo = INFINITY, hi = -INFINITY, widths = 0;
    for (int64_t i : candidates) {
      const Box& b = all[size_t(i)];
      if (!std::isfinite(b.x0) || !std::isfinite(b.x1) || !std::isfinite(b.y0) || !std::isfinite(b.y1)) return;
      lo = std::min(lo, centre(b.x0, b.x1));
      hi = std::max(hi, centre(b.x0, b.x1));
      widest_ = std::max(widest_, b.x1 - b.x0);
      tallest_ = std::max(tallest_, b.y1 - b.y0);
      widths += b.x1 - b.x0;
    }
    const double cellsWanted = double(std::min<size_t>(candidates.size(), 65536));
    width_ = std::max((hi - lo) / cellsWanted, widths / double(candidates.size()));
    if (!(width_ > 0) || !std::isfinite(width_)) return;
    lo_ = lo;
    // Centres and reaches are rounded: a margin keeps every box that could reach the threshold.
    slack_ = 1e-9 * (std::abs(lo) + std::abs(hi) + widest_ + tallest_) + 1e-9;
    cells_.resize(size_t(std::min(cellsWanted, std::floor((hi - lo) / width_) + 1)));
  }

  bool suppresses(const Box& a) const {
    if (cells_.empty()) {
      for (const Kept& o : plain_)
        if (overlapsOver(a, o.box, threshold_)) return true;
      return false;
    }
    const double cx = centre(a.x0, a.x1), cy = centre(a.y0, a.y1);
    const double reachX = centreReach(a.x1 - a.x0, widest_, threshold_) + slack_;
    const double reachY = centreReach(a.y1 - a.y0, tallest_, threshold_) + slack_;
    if (!(reachX > 0) || !(reachY > 0)) return false;  // a threshold of 1 or more: nothing suppresses
    for (size_t c = cellOf(cx - reachX), last = cellOf(cx + reachX); c <= last; ++c) {
      const std::vector<Kept>& cell = cells_[c];
      auto o = std::lower_bound(cell.begin(), cell.end(), cy - reachY, [](const Kept& k, double y) { return k.cy < y; });
      for (; o != cell.end() && o->cy < cy + reachY; ++o)
        if (std::abs(o->cx - cx) < reachX && overlapsOver(a, o->box, threshold_)) return true;
    }
    return false;
  }

  void add(const Box& a) {
    const Kept kept{a, centre(a.x0, a.x1), centre(a.y0, a.y1)};
    if (cells_.empty()) {
      plain_.push_back(kept);
      return;
    }
    std::vector<Kept>& cell = cells_[cellOf(kept.cx)];  // sorted by the centres' y
    cell.insert(std::upper_bound(cell.begin(), cell.end(), kept.cy, [](double y, const Kept& k) { return y < k.cy; }), kept);
  }

 private:
  struct Kept {
    Box box;
    double cx, cy;
  };
  static double centre(double lo, double hi) { return lo + (hi - lo) / 2; }
  size_t cellOf(double x) const {
    double c = std::floor((x - lo_) / width_);
    return size_t(std::clamp(c, 0.0, double(cells_.size() - 1)));
  }
  double threshold_;
  double lo_ = 0, width_ = 0, widest_ = 0, tallest_ = 0, slack_ = 0;
  std::vector<std::vector<Kept>> cells_;
  std::vector<Kept> plain_;  // every kept box when there are no cells
};

Expected<void> nmsKernel(KernelContext& ctx) {
  auto bs = ctx.requireTensor(0);
  if (!bs) return bs.error();
  auto ss = ctx.requireTensor(1);
  if (!ss) return ss.error();
  const TensorValue& boxes = **bs;
  const TensorValue& scores = **ss;
  if (boxes.rank() != 3 || boxes.dim(2) != 4)
    return ctx.error("boxes must be [batch, boxes, 4], got " + boxes.describe(), 0);
  if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
    return ctx.error("scores " + scores.describe() + " do not match boxes " + boxes.describe(), 1);
  int64_t maxOut = ctx.hasInput(2) && ctx.input(2).count() ? ctx.input(2).intAt(0) : 0;
  double iouThreshold = ctx.hasInput(3) && ctx.input(3).count() ? ctx.input(3).doubleAt(0) : 0.0;
  bool hasScoreThreshold = ctx.hasInput(4) && ctx.input(4).count();
  double scoreThreshold = hasScoreThreshold ? ctx.input(4).doubleAt(0) : 0.0;
  bool center = ctx.attrInt("center_point_box", 0) != 0;
  int64_t batches = boxes.dim(0), n = boxes.dim(1), classes = scores.dim(1);
  std::vector<int64_t> selected;
  auto corners = [&](int64_t b, int64_t i, double out[4]) {
    double v[4];
    for (int k = 0; k < 4; ++k) v[k] = boxes.doubleAt((b * n + i) * 4 + k);
    if (center) {
      out[0] = v[1] - v[3] / 2;
      out[1] = v[0] - v[2] / 2;
      out[2] = v[1] + v[3] / 2;
      out[3] = v[0] + v[2] / 2;
    } else {
      out[0] = std::min(v[0], v[2]);
      out[1] = std::min(v[1], v[3]);
      out[2] = std::max(v[0], v[2]);
      out[3] = std::max(v[1], v[3]);
    }
  };
  // Corners and areas once per batch, kept boxes contiguous: detection heads send thousands of boxes and
  // no per-class limit (torchvision's batched NMS), so the pairwise loop is the whole cost.
  std::vector<Box> all(static_cast<size_t>(n));
  std::vector<double> classScores;  // other score types
  std::vector<uint64_t> keys;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      double v[4];
      corners(b, i, v);
      all[size_t(i)] = {v[0], v[1], v[2], v[3], (v[2] - v[0]) * (v[3] - v[1])};
    }
    for (int64_t c = 0; c < classes; ++c) {
      // The candidates by descending score, ties by box index, NaN first (as TopK ranks it); a score
      // threshold leaves NaN out.
      std::vector<int64_t> order;
      if (scores.dtype() == DataType::Float && n < (int64_t(1) << 32)) {
        // One integer key per candidate (scoreRankKey, util/ordered_float.h), sorted descending: ssdlite's
        // 27,000 scores took the index comparator 1 ms.
        const float* classRow = scores.data<float>() + (b * classes + c) * n;
        keys.clear();
        for (int64_t i = 0; i < n; ++i)
          if (!hasScoreThreshold || classRow[i] > scoreThreshold)
            keys.push_back(scoreRankKey(classRow[i], uint32_t(i), true));
        std::sort(keys.begin(), keys.end(), std::greater<uint64_t>());
        order.reserve(keys.size());
        for (uint64_t key : keys) order.push_back(scoreRankPosition(key, true));
      } else {
        classScores.resize(size_t(n));
        for (int64_t i = 0; i < n; ++i) {
          double s = scores.doubleAt((b * classes + c) * n + i);
          classScores[size_t(i)] = s;
          if (!hasScoreThreshold || s > scoreThreshold) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
          const double sx = classScores[size_t(x)], sy = classScores[size_t(y)];
          return (std::isnan(sx) && !std::isnan(sy)) || sx > sy;
        });
      }
      std::vector<int64_t> kept;
      KeptBoxes keptBoxes(all, order, iouThreshold);
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= maxOut) break;
        const Box& a = all[size_t(i)];
        if (!keptBoxes.suppresses(a)) {
          kept.push_back(i);
          keptBoxes.add(a);
        }
      }
      for (int64_t i : kept) {
        selected.push_back(b);
        selected.push_back(c);
        selected.push_back(i);
      }
    }
  }
  int64_t count = int64_t(selected.size()) / 3;
  auto y = ctx.allocateOutput(0, DataType::Int64, {count, 3});
  if (!y) return y.error();
  std::copy(selected.begin(), selected.end(), (*y)->template data<int64_t>());
  return {};
}

}  // namespace

void registerNmsCpuKernels(KernelRegistry& r) {
  r.add(kernel("NonMaxSuppression", nmsKernel, 10));
}

}  // namespace onyx::exec
