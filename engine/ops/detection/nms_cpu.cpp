// NonMaxSuppression: per batch and class, greedy selection by score (ties: lower box index first) with
// IoU suppression; boxes as corners or centers.
#include <algorithm>
#include <numeric>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

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
  struct Box {
    double x0, y0, x1, y1, area;
  };
  std::vector<Box> all(static_cast<size_t>(n));
  std::vector<double> classScores(static_cast<size_t>(n));
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      double v[4];
      corners(b, i, v);
      all[size_t(i)] = {v[0], v[1], v[2], v[3], (v[2] - v[0]) * (v[3] - v[1])};
    }
    for (int64_t c = 0; c < classes; ++c) {
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i) {
        double s = scores.doubleAt((b * classes + c) * n + i);
        classScores[size_t(i)] = s;
        if (!hasScoreThreshold || s > scoreThreshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        return classScores[size_t(x)] > classScores[size_t(y)];
      });
      std::vector<int64_t> kept;
      std::vector<Box> keptBoxes;
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= maxOut) break;
        const Box& a = all[size_t(i)];
        bool suppressed = false;
        for (const Box& o : keptBoxes) {
          double iw = std::max(0.0, std::min(a.x1, o.x1) - std::max(a.x0, o.x0));
          double ih = std::max(0.0, std::min(a.y1, o.y1) - std::max(a.y0, o.y0));
          double inter = iw * ih;
          double uni = a.area + o.area - inter;
          if (uni > 0 && inter / uni > iouThreshold) {
            suppressed = true;
            break;
          }
        }
        if (!suppressed) {
          kept.push_back(i);
          keptBoxes.push_back(a);
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
