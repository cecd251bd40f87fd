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
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i) {
        double s = scores.doubleAt((b * classes + c) * n + i);
        if (!hasScoreThreshold || s > scoreThreshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        return scores.doubleAt((b * classes + c) * n + x) > scores.doubleAt((b * classes + c) * n + y);
      });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= maxOut) break;
        double a[4];
        corners(b, i, a);
        bool suppressed = false;
        for (int64_t j : kept) {
          double o[4];
          corners(b, j, o);
          double iw = std::max(0.0, std::min(a[2], o[2]) - std::max(a[0], o[0]));
          double ih = std::max(0.0, std::min(a[3], o[3]) - std::max(a[1], o[1]));
          double inter = iw * ih;
          double uni = (a[2] - a[0]) * (a[3] - a[1]) + (o[2] - o[0]) * (o[3] - o[1]) - inter;
          if (uni > 0 && inter / uni > iouThreshold) {
            suppressed = true;
            break;
          }
        }
        if (!suppressed) kept.push_back(i);
      }
      for (int64_t i : kept) {
        selected.push_back(b);
        selected.push_back(c);
        selected.push_back(i);
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
