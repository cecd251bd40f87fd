// A layout that stays put: after an edit of a level, the boxes of the nodes the edit did not touch keep their
// positions (stable_layout.h), on a generated 100-node level and on a real pass step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "layout/layout_service.h"
#include "layout/synthetic_models.h"
#include "onnx/onnx_io.h"
#include "passes_test_support.h"
#include "support/test_data.h"

namespace onyx::layout {
namespace {

using passes::testing::counter;
using passes::testing::runOnce;

std::shared_ptr<const LevelView> viewOf(const Graph& graph) {
  LevelRequest request;
  request.graph = &graph;
  auto built = buildLevel(request);
  if (!built) ADD_FAILURE() << built.error().toString();
  return std::make_shared<const LevelView>(built.ok() ? std::move(built.value()) : LevelView{});
}

std::shared_ptr<const LevelLayout> layOut(LayoutService& service, const Graph& graph, uint64_t revision,
                                          std::shared_ptr<const LevelLayout> around = nullptr) {
  LevelRequest request;
  request.graph = &graph;
  LayoutOutcome outcome = service.layoutNow(LayoutKey::of(request, 1, revision), viewOf(graph), std::move(around));
  if (!outcome) {
    ADD_FAILURE() << outcome.error().toString();
    return nullptr;
  }
  return outcome.value();
}

struct Stability {
  size_t unchanged = 0;  // node boxes in both layouts
  size_t kept = 0;       // of those, at the same place (within a point)
  double share() const { return unchanged ? double(kept) / double(unchanged) : 0; }
};

Stability stability(const LevelLayout& before, const LevelLayout& after) {
  Stability s;
  for (size_t i = 0; i < after.level->items.size(); ++i) {
    const Item& item = after.level->items[i];
    if (item.kind != ItemKind::Node) continue;
    size_t old = before.level->find(item.key);
    if (old == LevelView::npos) continue;
    ++s.unchanged;
    Point a = before.items[old].center(), b = after.items[i].center();
    if (std::abs(a.x - b.x) <= 1 && std::abs(a.y - b.y) <= 1) ++s.kept;
  }
  return s;
}

bool overlaps(const LevelLayout& layout) {
  for (size_t i = 0; i < layout.items.size(); ++i)
    for (size_t j = i + 1; j < layout.items.size(); ++j)
      if (layout.items[i].intersects(layout.items[j])) return true;
  return false;
}

// Edges whose curve runs through a box other than its ends (sampled along each Bézier segment).
size_t edgesThroughBoxes(const LevelLayout& layout) {
  size_t crossing = 0;
  for (size_t e = 0; e < layout.edges.size(); ++e) {
    const std::vector<Point>& p = layout.edges[e].points;
    bool crosses = false;
    for (size_t k = 0; k + 3 < p.size() && !crosses; k += 3) {
      for (double t = 0.05; t < 1 && !crosses; t += 0.05) {
        double u = 1 - t;
        double x = u * u * u * p[k].x + 3 * u * u * t * p[k + 1].x + 3 * u * t * t * p[k + 2].x + t * t * t * p[k + 3].x;
        double y = u * u * u * p[k].y + 3 * u * u * t * p[k + 1].y + 3 * u * t * t * p[k + 2].y + t * t * t * p[k + 3].y;
        for (size_t i = 0; i < layout.items.size() && !crosses; ++i) {
          if (i == layout.level->edges[e].from || i == layout.level->edges[e].to) continue;
          const Rect& box = layout.items[i];
          crosses = x > box.x + 2 && x < box.right() - 2 && y > box.y + 2 && y < box.bottom() - 2;
        }
      }
    }
    crossing += crosses;
  }
  return crossing;
}

// Replaces the node with a new one of another op type: one node of the level changes identity.
void replaceWithSigmoid(Model& model, Node* node) {
  Rewriter rewriter(model);
  Node* replacement = rewriter.addNode(
      model.graph(),
      {.opType = "Sigmoid", .name = node->name() + "_sigmoid", .inputs = {node->input(0)},
       .outputNames = {node->output(0)->name() + "_sigmoid"}},
      node);
  rewriter.setType(replacement->output(0), node->output(0)->type());
  rewriter.replaceAllUsesWith(node->output(0), replacement->output(0));
  rewriter.removeNode(node);
}

TEST(StableLayout, OneChangedNodeOfAHundredLeavesTheOthersInPlace) {
  auto model = makeNetworkLike({.nodes = 130});
  const size_t nodes = model->graph().nodes().size();
  ASSERT_GE(nodes, 100u);
  LayoutService service;
  auto before = layOut(service, model->graph(), 0);
  ASSERT_TRUE(before);
  ASSERT_EQ(before->level->nodeItemCount(), nodes) << "the whole level is flat";
  // A node in the middle of the level, inside the second layer.
  Node* middle = nullptr;
  size_t index = 0;
  for (Node* node : model->graph().nodes())
    if (index++ >= nodes / 2 && node->opType() == "Softmax") {
      middle = node;
      break;
    }
  ASSERT_TRUE(middle);
  replaceWithSigmoid(*model, middle);

  auto kept = layOut(service, model->graph(), 1, before);
  auto fresh = layOut(service, model->graph(), 2);
  ASSERT_TRUE(kept && fresh);
  EXPECT_EQ(kept->keptItems + 1, kept->items.size()) << "only the new node is placed";
  EXPECT_EQ(kept->dotSeconds, 0.0) << "no dot run";
  Stability around = stability(*before, *kept);
  Stability afresh = stability(*before, *fresh);
  std::printf("unchanged nodes kept in place: %zu of %zu around the old layout, %zu of %zu with a fresh dot run\n",
              around.kept, around.unchanged, afresh.kept, afresh.unchanged);
  EXPECT_EQ(around.unchanged, nodes - 1);
  EXPECT_GE(around.share(), 0.9);
  EXPECT_FALSE(overlaps(*kept)) << "the new box found a free spot";
  EXPECT_LE(edgesThroughBoxes(*kept), edgesThroughBoxes(*before));
  EXPECT_EQ(service.stats().keptLayouts, 1u);

  // The new node lies between its producer and its consumers, and its edges end on its box.
  NodeId sigmoid = kNoNode;
  for (const Node* node : model->graph().nodes())
    if (node->opType() == "Sigmoid") sigmoid = node->id();
  const size_t added = kept->level->find("n:" + std::to_string(sigmoid));
  ASSERT_NE(added, LevelView::npos);
  for (size_t e = 0; e < kept->level->edges.size(); ++e) {
    const Edge& edge = kept->level->edges[e];
    if (edge.to == added) {
      EXPECT_LT(kept->items[edge.from].center().y, kept->items[added].center().y);
      EXPECT_EQ(kept->edges[e].arrowTip.y, kept->items[added].y);
    }
    if (edge.from == added) {
      EXPECT_GT(kept->items[edge.to].center().y, kept->items[added].center().y);
    }
  }
}

TEST(StableLayout, TooMuchNewGivesWayToDot) {
  auto small = makeNetworkLike({.nodes = 30});
  auto other = makeResNet50Like();
  LayoutService service;
  auto before = layOut(service, small->graph(), 0);
  ASSERT_TRUE(before);
  // Another model altogether under the same level: nothing is kept, so dot lays it out.
  auto after = layOut(service, other->graph(), 1, before);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->keptItems, 0u);
  EXPECT_EQ(service.stats().keptLayouts, 0u);
  EXPECT_EQ(service.stats().dotRuns, 2u);
}

// A real pass step: elementwise-fusion turns resnet18's eight Add+Relu pairs into fused calls; every node it
// did not touch keeps its box.
TEST(StableLayoutModels, Resnet18ElementwiseFusionKeepsUntouchedNodes) {
  ONYX_REQUIRE_SHARED(folder, "models/resnet18");
  auto loaded = loadModel(folder / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  Model& model = **loaded;
  LayoutService service;
  auto before = layOut(service, model.graph(), 0);
  ASSERT_TRUE(before);
  passes::PassStep step = runOnce(model, "elementwise-fusion");
  ASSERT_GT(counter(step, "groups-fused"), 0);
  auto after = layOut(service, model.graph(), 1, before);
  ASSERT_TRUE(after);
  Stability s = stability(*before, *after);
  std::printf("resnet18 elementwise-fusion: %zu of %zu untouched nodes kept in place, %zu items placed\n", s.kept,
              s.unchanged, after->items.size() - after->keptItems);
  EXPECT_GT(s.unchanged, 30u);
  EXPECT_GE(s.share(), 0.9);
  EXPECT_EQ(after->items.size() - after->keptItems, size_t(counter(step, "groups-fused")))
      << "one new box per fused group";
  EXPECT_FALSE(overlaps(*after));
  // Edges between boxes that stayed keep their routes point for point.
  size_t routesKept = 0, between = 0;
  for (size_t e = 0; e < after->level->edges.size(); ++e) {
    const Edge& edge = after->level->edges[e];
    size_t from = before->level->find(after->level->items[edge.from].key);
    size_t to = before->level->find(after->level->items[edge.to].key);
    if (from == LevelView::npos || to == LevelView::npos) continue;
    for (size_t o = 0; o < before->level->edges.size(); ++o) {
      const Edge& old = before->level->edges[o];
      if (old.from != from || old.to != to || old.valueName != edge.valueName) continue;
      ++between;
      routesKept += before->edges[o] == after->edges[e];
    }
  }
  EXPECT_GT(between, 20u);
  EXPECT_EQ(routesKept, between);
  // The fused nodes' edges (old routes bent to them, or new curves around the boxes between) cross no box
  // more than dot's own routes do.
  std::printf("edges through boxes: %zu before, %zu after\n", edgesThroughBoxes(*before), edgesThroughBoxes(*after));
  EXPECT_LE(edgesThroughBoxes(*after), edgesThroughBoxes(*before));
}

}  // namespace
}  // namespace onyx::layout
