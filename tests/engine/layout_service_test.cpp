// Laying levels out with Graphviz on the layout thread: geometry, determinism, caching and cancellation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "layout/layout_service.h"
#include "layout/synthetic_models.h"

namespace onyx::layout {
namespace {

std::shared_ptr<const LevelView> viewOf(const Graph& graph, LevelRequest request = {}) {
  request.graph = &graph;
  auto built = buildLevel(request);
  if (!built) ADD_FAILURE() << built.error().toString();
  return std::make_shared<const LevelView>(built.ok() ? std::move(built.value()) : LevelView{});
}

std::shared_ptr<const LevelLayout> layOut(LayoutService& service, const Graph& graph,
                                          LevelRequest request = {}, uint64_t revision = 0) {
  request.graph = &graph;
  LayoutOutcome outcome = service.layoutNow(LayoutKey::of(request, 1, revision), viewOf(graph, request));
  if (!outcome) {
    ADD_FAILURE() << outcome.error().toString();
    return nullptr;
  }
  return outcome.value();
}

// On the outline of the box, within a tolerance: where edges leave and arrows end.
bool onBorder(const Rect& box, const Point& p, double tolerance = 1.5) {
  bool nearOuter = p.x >= box.x - tolerance && p.x <= box.right() + tolerance && p.y >= box.y - tolerance &&
                   p.y <= box.bottom() + tolerance;
  bool insideInner = p.x > box.x + tolerance && p.x < box.right() - tolerance && p.y > box.y + tolerance &&
                     p.y < box.bottom() - tolerance;
  return nearOuter && !insideInner;
}

// Blocks the layout thread inside a job's progress callback until released, so tests control what is
// queued behind it.
class Gate {
 public:
  void hold() {
    std::unique_lock lock(mutex_);
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }
  void waitUntilHeld() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return entered_; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool entered_ = false;
  bool open_ = false;
};

TEST(Layout, EveryItemHasABoxInsideTheBoundsAndNoBoxesOverlap) {
  auto model = makeResNet50Like();
  LayoutService service;
  auto layout = layOut(service, model->graph());
  ASSERT_TRUE(layout);
  const LevelView& level = *layout->level;
  ASSERT_EQ(layout->items.size(), level.items.size());
  ASSERT_EQ(layout->edges.size(), level.edges.size());
  EXPECT_EQ(layout->profile, DotProfile::Quality);
  for (size_t i = 0; i < layout->items.size(); ++i) {
    const Rect& box = layout->items[i];
    EXPECT_NEAR(box.width, level.items[i].width, 0.5) << level.items[i].key;
    EXPECT_NEAR(box.height, level.items[i].height, 0.5) << level.items[i].key;
    EXPECT_GE(box.x, -0.5);
    EXPECT_GE(box.y, -0.5);
    EXPECT_LE(box.right(), layout->bounds.width + 0.5);
    EXPECT_LE(box.bottom(), layout->bounds.height + 0.5);
    for (size_t j = i + 1; j < layout->items.size(); ++j) {
      EXPECT_FALSE(box.intersects(layout->items[j]))
          << level.items[i].key << " overlaps " << level.items[j].key;
    }
  }
}

TEST(Layout, ProducersSitAboveConsumersAndEdgesRunBetweenThem) {
  auto model = makeResNet50Like();
  LayoutService service;
  auto layout = layOut(service, model->graph());
  ASSERT_TRUE(layout);
  const LevelView& level = *layout->level;
  for (size_t e = 0; e < level.edges.size(); ++e) {
    const Rect& from = layout->items[level.edges[e].from];
    const Rect& to = layout->items[level.edges[e].to];
    // Top to bottom with y growing downwards: the producer's box ends above the consumer's.
    EXPECT_LT(from.bottom(), to.y) << level.edges[e].valueName;
    const EdgeGeometry& geometry = layout->edges[e];
    ASSERT_GE(geometry.points.size(), 4u);
    EXPECT_EQ((geometry.points.size() - 1) % 3, 0u);
    EXPECT_TRUE(onBorder(from, geometry.points.front())) << level.edges[e].valueName;
    ASSERT_TRUE(geometry.hasArrow);
    EXPECT_TRUE(onBorder(to, geometry.arrowTip)) << level.edges[e].valueName;
    EXPECT_LT(geometry.points.front().y, geometry.arrowTip.y) << level.edges[e].valueName;
  }
  size_t output = 0;
  while (output < level.items.size() && level.items[output].kind != ItemKind::Output) ++output;
  ASSERT_LT(output, level.items.size());
  EXPECT_LT(layout->items[level.find("in:input")].bottom(), layout->items[output].y);
}

TEST(Layout, SameModelGivesTheSameLayout) {
  auto first = makeResNet50Like();
  auto second = makeResNet50Like();
  LayoutService one;
  LayoutService other;
  auto a = layOut(one, first->graph());
  auto b = layOut(other, second->graph());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->items, b->items);
  EXPECT_EQ(a->edges, b->edges);
  EXPECT_EQ(a->bounds, b->bounds);
}

TEST(Layout, FastProfilesStillRouteEveryEdgeDownwards) {
  auto model = makeNetworkLike({.nodes = 300});
  for (DotProfile profile : {DotProfile::Fast, DotProfile::FastStraight}) {
    LayoutOptions options;
    options.policy = profile == DotProfile::Fast ? DotPolicy{0, 1u << 30} : DotPolicy{0, 0};
    LayoutService service(options);
    LevelRequest flat;
    flat.expandAll = true;
    auto layout = layOut(service, model->graph(), flat);
    ASSERT_TRUE(layout);
    EXPECT_EQ(layout->profile, profile);
    const LevelView& level = *layout->level;
    EXPECT_EQ(level.nodeItemCount(), model->graph().nodeCount());
    for (size_t e = 0; e < level.edges.size(); ++e) {
      const Rect& from = layout->items[level.edges[e].from];
      const Rect& to = layout->items[level.edges[e].to];
      EXPECT_LT(from.bottom(), to.y) << profileName(profile) << " " << level.edges[e].valueName;
      EXPECT_GE(layout->edges[e].points.size(), 4u);
    }
  }
}

// Levels past DotPolicy::layeredAbove get the linear layered layout (dot crashed on a 40k-node chain):
// every edge still points down, boxes of one rank do not overlap, frames hold their items.
TEST(Layout, LayeredLayoutForHugeLevelsRoutesDownwardsWithoutOverlap) {
  auto model = makeNetworkLike({.nodes = 300});
  LayoutOptions options;
  options.policy = DotPolicy{0, 0, 0};
  LayoutService service(options);
  LevelRequest request;
  request.collapseThreshold = 100;
  request.expandedScopes = {"/encoder", "/encoder/layer.1"};
  auto layout = layOut(service, model->graph(), request);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->profile, DotProfile::Layered);
  EXPECT_EQ(profileName(DotProfile::Layered), "layered");
  const LevelView& level = *layout->level;
  ASSERT_GT(level.edges.size(), 10u);
  for (size_t e = 0; e < level.edges.size(); ++e) {
    const Rect& from = layout->items[level.edges[e].from];
    const Rect& to = layout->items[level.edges[e].to];
    EXPECT_LT(from.bottom(), to.y) << level.edges[e].valueName;
    EXPECT_EQ(layout->edges[e].points.size(), 4u);
  }
  for (size_t i = 0; i < layout->items.size(); ++i)
    for (size_t j = i + 1; j < layout->items.size(); ++j)
      EXPECT_FALSE(layout->items[i].intersects(layout->items[j])) << i << " " << j;
  ASSERT_FALSE(level.clusters.empty());
  for (size_t i = 0; i < level.items.size(); ++i) {
    if (level.items[i].cluster < 0) continue;
    const Rect& frame = layout->clusters[size_t(level.items[i].cluster)];
    const Rect& box = layout->items[i];
    EXPECT_TRUE(frame.x <= box.x && frame.y <= box.y && box.right() <= frame.right() && box.bottom() <= frame.bottom());
  }
  EXPECT_EQ(chooseProfile(DotPolicy{}.layeredAbove + 1), DotProfile::Layered);
}

TEST(Layout, ExpandedScopesGetFramesAroundTheirItems) {
  auto model = makeNetworkLike({.nodes = 400});
  LevelRequest request;
  request.collapseThreshold = 100;
  request.expandedScopes = {"/encoder", "/encoder/layer.1"};
  LayoutService service;
  auto layout = layOut(service, model->graph(), request);
  ASSERT_TRUE(layout);
  const LevelView& level = *layout->level;
  ASSERT_EQ(layout->clusters.size(), 2u);
  for (size_t i = 0; i < level.items.size(); ++i) {
    for (int c = level.items[i].cluster; c >= 0; c = level.clusters[static_cast<size_t>(c)].parent) {
      const Rect& frame = layout->clusters[static_cast<size_t>(c)];
      const Rect& box = layout->items[i];
      EXPECT_TRUE(frame.x <= box.x && box.right() <= frame.right() && frame.y <= box.y &&
                  box.bottom() <= frame.bottom())
          << level.items[i].key << " outside " << level.clusters[static_cast<size_t>(c)].scopePath;
    }
  }
}

TEST(LayoutService, CacheAnswersWithoutRunningDotAgain) {
  auto model = makeResNet50Like();
  LayoutService service;
  LevelRequest request;
  request.graph = &model->graph();
  auto view = viewOf(model->graph());
  auto first = service.submit(LayoutKey::of(request, 7, 1), view);
  ASSERT_TRUE(first->wait().ok());
  EXPECT_FALSE(first->fromCache());
  auto second = service.submit(LayoutKey::of(request, 7, 1), view);
  ASSERT_TRUE(second->future().wait_for(std::chrono::seconds(0)) == std::future_status::ready);
  ASSERT_TRUE(second->wait().ok());
  EXPECT_TRUE(second->fromCache());
  EXPECT_EQ(second->wait().value(), first->wait().value());
  EXPECT_EQ(service.stats().dotRuns, 1u);
  EXPECT_EQ(service.stats().cacheHits, 1u);

  // Another revision of the model, scope or expansion is another layout.
  ASSERT_TRUE(service.layoutNow(LayoutKey::of(request, 7, 2), view).ok());
  LevelRequest expanded = request;
  expanded.expandedScopes = {"/layer1"};
  ASSERT_TRUE(service.layoutNow(LayoutKey::of(expanded, 7, 1), view).ok());
  EXPECT_EQ(service.stats().dotRuns, 3u);

  // A key reused for a different level (a caller bug) is a miss, not the wrong layout.
  auto other = makeNetworkLike({.nodes = 100});
  ASSERT_TRUE(service.layoutNow(LayoutKey::of(request, 7, 1), viewOf(other->graph())).ok());
  EXPECT_EQ(service.stats().dotRuns, 4u);

  service.clearCache();
  ASSERT_TRUE(service.layoutNow(LayoutKey::of(request, 7, 1), view).ok());
  EXPECT_EQ(service.stats().dotRuns, 5u);
}

TEST(LayoutService, CacheKeepsOnlyTheMostRecentLevels) {
  auto model = makeResNet50Like();
  LayoutOptions options;
  options.cacheCapacity = 2;
  LayoutService service(options);
  LevelRequest request;
  request.graph = &model->graph();
  auto view = viewOf(model->graph());
  for (uint64_t revision : {1, 2, 3})
    ASSERT_TRUE(service.layoutNow(LayoutKey::of(request, 1, revision), view).ok());
  EXPECT_EQ(service.cached(LayoutKey::of(request, 1, 1)), nullptr);
  EXPECT_NE(service.cached(LayoutKey::of(request, 1, 3)), nullptr);
}

TEST(LayoutService, CancellingAQueuedJobSettlesItWithoutRunningDot) {
  auto model = makeResNet50Like();
  auto view = viewOf(model->graph());
  LevelRequest request;
  request.graph = &model->graph();
  LayoutService service;
  Gate gate;
  auto blocker = service.submit(LayoutKey::of(request, 1, 1), view, [&](LayoutPhase phase, double) {
    if (phase == LayoutPhase::Building) gate.hold();
  });
  gate.waitUntilHeld();
  bool completed = false;
  auto queued = service.submit(LayoutKey::of(request, 1, 2), view, {},
                               [&](const LayoutOutcome& outcome) { completed = !outcome.ok(); });
  EXPECT_EQ(queued->phase(), LayoutPhase::Queued);
  queued->cancel();
  EXPECT_TRUE(completed);
  ASSERT_EQ(queued->future().wait_for(std::chrono::seconds(0)), std::future_status::ready);
  ASSERT_FALSE(queued->wait().ok());
  EXPECT_EQ(queued->wait().error().message, "layout cancelled");
  EXPECT_EQ(queued->phase(), LayoutPhase::Cancelled);

  gate.open();
  ASSERT_TRUE(blocker->wait().ok());
  // A job behind the cancelled one proves the worker has passed it.
  ASSERT_TRUE(service.layoutNow(LayoutKey::of(request, 1, 3), view).ok());
  EXPECT_EQ(service.stats().dotRuns, 2u);
  EXPECT_EQ(service.stats().cancelled, 1u);
  EXPECT_EQ(service.cached(LayoutKey::of(request, 1, 2)), nullptr);
}

TEST(LayoutService, CancellingARunningJobDropsItsResult) {
  auto model = makeResNet50Like();
  auto view = viewOf(model->graph());
  LevelRequest request;
  request.graph = &model->graph();
  LayoutService service;
  std::shared_ptr<LayoutJob> job;
  std::mutex jobMutex;
  std::unique_lock hold(jobMutex);
  job = service.submit(LayoutKey::of(request, 1, 1), view, [&](LayoutPhase phase, double) {
    if (phase != LayoutPhase::RunningDot) return;
    std::lock_guard wait(jobMutex);  // until `job` is assigned
    job->cancel();                   // as a user would while dot runs
  });
  hold.unlock();
  ASSERT_FALSE(job->wait().ok());
  ASSERT_TRUE(service.layoutNow(LayoutKey::of(request, 1, 2), view).ok());  // the worker moved on
  EXPECT_EQ(service.stats().dotRuns, 2u);
  EXPECT_EQ(service.cached(LayoutKey::of(request, 1, 1)), nullptr);
}

TEST(LayoutService, ReportsEachPhaseInOrder) {
  auto model = makeResNet50Like();
  LevelRequest request;
  request.graph = &model->graph();
  LayoutService service;
  std::vector<LayoutPhase> phases;
  std::mutex mutex;
  auto job =
      service.submit(LayoutKey::of(request, 1, 1), viewOf(model->graph()), [&](LayoutPhase phase, double) {
        std::lock_guard lock(mutex);
        phases.push_back(phase);
      });
  ASSERT_TRUE(job->wait().ok());
  std::lock_guard lock(mutex);
  EXPECT_EQ(phases,
            (std::vector<LayoutPhase>{LayoutPhase::Queued, LayoutPhase::Building, LayoutPhase::RunningDot,
                                      LayoutPhase::Reading, LayoutPhase::Done}));
}

TEST(LayoutService, EmptyGraphLaysOutToNothing) {
  Model model;
  LayoutService service;
  auto layout = layOut(service, model.graph());
  ASSERT_TRUE(layout);
  EXPECT_TRUE(layout->items.empty());
  EXPECT_TRUE(layout->edges.empty());
}

TEST(DotProfile, ChosenBySizeOfTheLevel) {
  DotPolicy policy;
  EXPECT_EQ(chooseProfile(200, policy), DotProfile::Quality);
  EXPECT_EQ(chooseProfile(policy.fastAbove + 1, policy), DotProfile::Fast);
  EXPECT_EQ(chooseProfile(policy.straightAbove + 1, policy), DotProfile::FastStraight);
}

TEST(DotProfile, FastSetKeepsRankingNetworkSimplex) {
  // nslimit1=0 made spline routing of real models take minutes (ssdlite320: over 60 s instead of 0.6 s).
  for (DotProfile profile : {DotProfile::Fast, DotProfile::FastStraight}) {
    auto attributes = dotGraphAttributes(profile);
    auto has = [&](std::string_view name, std::string_view value) {
      return std::find(attributes.begin(), attributes.end(), std::pair(name, value)) != attributes.end();
    };
    EXPECT_TRUE(has("newrank", "true"));
    EXPECT_TRUE(has("nslimit", "0"));
    EXPECT_TRUE(
        std::none_of(attributes.begin(), attributes.end(), [](auto& a) { return a.first == "nslimit1"; }));
    EXPECT_EQ(has("splines", "false"), profile == DotProfile::FastStraight);
  }
}

}  // namespace
}  // namespace onyx::layout
