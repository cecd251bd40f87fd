// NonMaxSuppression with many boxes (the bucketed path) against a plain greedy loop written here: clusters,
// boxes offset far apart per class (torchvision's batched NMS), very wide boxes, zero-width boxes, score
// ties, thresholds from below 0 (every pair suppresses) to 1 (none does), and ssdlite's head: 91 classes
// of boxes up to the image's size, offset along the diagonal.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

std::vector<int64_t> greedy(const std::vector<float>& boxes, const std::vector<float>& scores, double threshold) {
  size_t n = scores.size();
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  auto box = [&](int64_t i, int k) { return double(boxes[size_t(i) * 4 + size_t(k)]); };
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    bool suppressed = false;
    for (int64_t j : kept) {
      double iw = std::max(0.0, std::min(box(i, 2), box(j, 2)) - std::max(box(i, 0), box(j, 0)));
      double ih = std::max(0.0, std::min(box(i, 3), box(j, 3)) - std::max(box(i, 1), box(j, 1)));
      double inter = iw * ih;
      double uni = (box(i, 2) - box(i, 0)) * (box(i, 3) - box(i, 1)) + (box(j, 2) - box(j, 0)) * (box(j, 3) - box(j, 1)) - inter;
      if (uni > 0 && inter / uni > threshold) suppressed = true;
    }
    if (!suppressed) kept.push_back(i);
  }
  return kept;
}

// The selected box indices, in order, of one NMS call over a single class (scores [1, 1, n] of any type).
std::vector<int64_t> selectedBoxes(const std::vector<float>& boxes, const TensorValue& scores, double threshold) {
  const int64_t n = scores.count();
  auto out = runNode({"NonMaxSuppression"},
                     {TensorValue::fromVector<float>(DataType::Float, {1, n, 4}, boxes), scores,
                      TensorValue::fromVector<int64_t>(DataType::Int64, {1}, {n}),
                      TensorValue::fromVector<float>(DataType::Float, {1}, {float(threshold)})},
                     "reference");
  EXPECT_TRUE(out.ok()) << out.error().toString();
  std::vector<int64_t> got;
  if (!out.ok()) return got;
  const auto& selected = std::get<TensorValue>((*out)[0]);
  for (int64_t r = 0; r < selected.dim(0); ++r) got.push_back(selected.template data<int64_t>()[r * 3 + 2]);
  return got;
}

std::vector<int64_t> selectedBoxes(const std::vector<float>& boxes, const std::vector<float>& scores, double threshold) {
  return selectedBoxes(boxes, TensorValue::fromVector<float>(DataType::Float, {1, 1, int64_t(scores.size())}, scores),
                       threshold);
}

TEST(ExecNms, BatchedDetectionHeadMatchesThePlainGreedyLoop) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int64_t n = 6000;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < n; ++i) {
    const float offset = float(i % 91) * 321.0f;  // torchvision: class index * (largest coordinate + 1)
    const float w = 4.0f + 316.0f * u(rng) * u(rng), h = 4.0f + 316.0f * u(rng) * u(rng);
    const float x = offset + (320.0f - w) * u(rng), y = offset + (320.0f - h) * u(rng);
    // Some boxes given by their other diagonal: NMS takes any two opposite corners.
    if (i % 7 == 0) boxes.insert(boxes.end(), {x + w, y + h, x, y});
    else boxes.insert(boxes.end(), {x, y, x + w, y + h});
    scores.push_back(u(rng));
  }
  std::vector<float> ordered = boxes;  // the greedy loop below takes (x0, y0, x1, y1)
  for (size_t i = 0; i < ordered.size(); i += 4) {
    if (ordered[i] > ordered[i + 2]) std::swap(ordered[i], ordered[i + 2]);
    if (ordered[i + 1] > ordered[i + 3]) std::swap(ordered[i + 1], ordered[i + 3]);
  }
  for (double threshold : {0.3, 0.55, 0.8}) {
    SCOPED_TRACE(threshold);
    std::vector<int64_t> want = greedy(ordered, scores, threshold);
    EXPECT_GT(want.size(), 500u);
    EXPECT_LT(want.size(), size_t(n));
    EXPECT_EQ(selectedBoxes(boxes, scores, threshold), want);
  }
}

// Candidates go by descending score, ties by box index, and a NaN score first (as TopK ranks it); float
// scores sort on integer keys, others through a comparator: both give the same selection.
TEST(ExecNms, NanScoresRankFirstWhateverTheScoreType) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Boxes 0-2 overlap heavily, 3 stands apart; box 2's score is NaN, 0 and 1 tie.
  const std::vector<float> boxes = {0, 0, 10, 10, 0, 1, 10, 11, 1, 0, 11, 10, 50, 50, 60, 60};
  const std::vector<float> scores = {0.5f, 0.5f, nan, 0.9f};
  for (DataType type : {DataType::Float, DataType::Double}) {
    SCOPED_TRACE(std::string(dataTypeName(type)));
    TensorValue typedScores = type == DataType::Float
                                  ? TensorValue::fromVector<float>(DataType::Float, {1, 1, 4}, scores)
                                  : TensorValue::fromVector<double>(DataType::Double, {1, 1, 4},
                                                                    std::vector<double>(scores.begin(), scores.end()));
    EXPECT_EQ(selectedBoxes(boxes, typedScores, 0.5), (std::vector<int64_t>{2, 3}));
  }
}

TEST(ExecNms, ManyBoxesMatchThePlainGreedyLoop) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int64_t n = 3000;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < n; ++i) {
    float offset = float(i % 5) * 1000.0f;  // five "classes" far apart
    float x = offset + 300.0f * u(rng), y = offset + 300.0f * u(rng);
    float w = i % 97 == 0 ? 900.0f : i % 53 == 0 ? 0.0f : 5.0f + 40.0f * u(rng);
    float h = 5.0f + 40.0f * u(rng);
    boxes.insert(boxes.end(), {x, y, x + w, y + h});
    scores.push_back(i % 11 == 0 ? 0.5f : u(rng));  // ties
  }
  for (double threshold : {0.0, 0.1, 0.5, 0.9, 1.0, -0.1}) {
    SCOPED_TRACE(threshold);
    std::vector<int64_t> want = greedy(boxes, scores, threshold);
    EXPECT_GT(want.size(), threshold < 0 ? 0u : 100u);
    EXPECT_EQ(selectedBoxes(boxes, scores, threshold), want);
  }
}

}  // namespace
}  // namespace onyx::exec::testing
