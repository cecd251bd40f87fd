// A profile of an optimized model painted on the original graph through provenance (origin_profile.h): an
// optimized node's time goes to the original nodes it stands for, split by FLOPs; removed nodes get zero;
// the shares add up to the profile's total.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "onnx/onnx_io.h"
#include "passes_test_support.h"
#include "profile/origin_profile.h"
#include "profile/profile_run.h"
#include "profile/static_flops.h"
#include "support/test_data.h"

namespace onyx::profile {
namespace {

using passes::testing::parse;
using passes::testing::runOnce;

// A Conv and its BatchNormalization (folded into one Conv by conv-bn-fusion), an Add, and a dead Relu that
// dead-code-elimination removes.
const char* kConvBnDead = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 2, 4, 4] x) => (float[1, 2, 4, 4] y)
  <float[2, 2, 1, 1] w = {1, 0, 0, 1}, float[2] scale = {2, 3}, float[2] shift = {0.5, -1},
   float[2] mean = {0.1, 0.2}, float[2] var = {1, 4}, float[1, 2, 1, 1] bias = {1, 2}> {
  c = Conv(x, w)
  b = BatchNormalization(c, scale, shift, mean, var)
  unused = Relu(x)
  y = Add(b, bias)
})";

const Node* nodeOf(const Model& model, const std::string& opType) {
  for (const Node* node : model.graph().nodes())
    if (node->opType() == opType) return node;
  return nullptr;
}

const OriginTime* rowOf(const OriginProfile& origins, const std::string& opType) {
  for (const OriginTime& row : origins.nodes)
    if (row.opType == opType) return &row;
  return nullptr;
}

exec::ProfileEvent eventOf(const Node& node, int64_t ns) {
  exec::ProfileEvent event;
  event.node = node.id();
  event.name = node.name();
  event.opType = node.opType();
  event.durationNs = ns;
  return event;
}

int64_t sumOfShares(const OriginProfile& origins) {
  return std::accumulate(origins.nodes.begin(), origins.nodes.end(), int64_t(0),
                         [](int64_t sum, const OriginTime& row) { return sum + row.totalNs; });
}

TEST(OriginProfile, FoldedNodesShareByFlopsAndRemovedOnesGetNothing) {
  auto original = parse(kConvBnDead);
  ASSERT_TRUE(original);
  auto optimized = Rewriter::copyModel(*original);
  runOnce(*optimized, "conv-bn-fusion");
  runOnce(*optimized, "dead-code-elimination");
  ASSERT_FALSE(nodeOf(*optimized, "BatchNormalization"));
  ASSERT_FALSE(nodeOf(*optimized, "Relu"));
  Profile profile;
  profile.events = {eventOf(*nodeOf(*optimized, "Conv"), 1000), eventOf(*nodeOf(*optimized, "Add"), 300)};

  OriginProfile origins = paintOnOriginal(profile, *optimized, *original);
  ASSERT_EQ(origins.nodes.size(), 4u);
  EXPECT_EQ(origins.totalNs, 1300);
  EXPECT_EQ(sumOfShares(origins), 1300);
  EXPECT_TRUE(origins.unplaced.empty());
  const OriginTime* conv = rowOf(origins, "Conv");
  const OriginTime* bn = rowOf(origins, "BatchNormalization");
  // Conv: 2 x 32 outputs x 2 inputs = 128 FLOPs; BatchNormalization: 4 x 32 = 128: half each.
  EXPECT_EQ(conv->flops, 128);
  EXPECT_EQ(bn->flops, 128);
  EXPECT_EQ(conv->fate, OriginFate::Merged);
  EXPECT_EQ(bn->fate, OriginFate::Merged);
  EXPECT_EQ(conv->totalNs, 500);
  EXPECT_EQ(bn->totalNs, 500);
  EXPECT_EQ(rowOf(origins, "Add")->fate, OriginFate::Kept);
  EXPECT_EQ(rowOf(origins, "Add")->totalNs, 300);
  EXPECT_EQ(rowOf(origins, "Relu")->fate, OriginFate::Removed);
  EXPECT_EQ(rowOf(origins, "Relu")->totalNs, 0);
  EXPECT_TRUE(descendsFrom(*optimized, *original));
  EXPECT_TRUE(descendsFrom(*original, *original)) << "every node stands for itself";
  auto unrelated = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
h (float[2] x) => (float[2] y) { y = Sigmoid(x) })");
  ASSERT_TRUE(unrelated);
  EXPECT_FALSE(descendsFrom(*unrelated, *original));
  EXPECT_FALSE(descendsFrom(*optimized, *unrelated));
  ProfileMetrics metrics = originMetrics(origins);
  EXPECT_EQ(metrics.nodes.size(), 3u) << "the removed Relu is not painted";
  EXPECT_EQ(metrics.nodes.at(bn->node).totalNs, 500);
}

// The issue's acceptance: squeezenet1_1 optimized with the default pipeline and saved (so its nodes are found
// by name and origin, as from a file), profiled on the CPU and painted on the original graph: every original
// node gets a share, and the shares add up to the total.
TEST(OriginProfileModels, OptimizedSqueezenetPaintsEveryOriginalNode) {
  ONYX_REQUIRE_SHARED(folder, "models/squeezenet1_1");
  auto original = loadModel(folder / "model.onnx");
  ASSERT_TRUE(original.ok()) << original.error().toString();
  auto optimizing = Rewriter::copyModel(**original);
  passes::PassManager manager(*optimizing);
  passes::PipelineResult pipeline = manager.run(passes::defaultPipeline());
  ASSERT_FALSE(pipeline.error) << pipeline.error->toString();
  ASSERT_LT(pipeline.nodesAfter, pipeline.nodesBefore);
  auto bytes = serializeModel(*optimizing);
  ASSERT_TRUE(bytes.ok());
  auto optimized = parseModel(*bytes, {}, "optimized");
  ASSERT_TRUE(optimized.ok()) << optimized.error().toString();

  RunRequest request;
  request.iterations = 2;
  request.bindings = {{"batch", 1}, {"height", 224}, {"width", 224}};
  auto run = runProfiled(**optimized, request);
  ASSERT_TRUE(run.ok()) << run.error().toString();
  OriginProfile origins = paintOnOriginal(run->profile, **optimized, **original, request.bindings);

  ASSERT_EQ(origins.nodes.size(), (*original)->graph().nodes().size());
  EXPECT_TRUE(origins.unplaced.empty()) << origins.unplaced.front();
  EXPECT_GT(origins.totalNs, 0);
  EXPECT_EQ(origins.placedNs, origins.totalNs);
  EXPECT_EQ(sumOfShares(origins), origins.totalNs);
  std::map<std::string, int> fates;
  for (const OriginTime& row : origins.nodes) {
    ++fates[fateName(row.fate)];
    // Every node gets a share (zero for nodes that compute nothing or were removed); those that compute
    // get time.
    EXPECT_GE(row.totalNs, 0) << row.name;
    if (row.fate == OriginFate::Removed) {
      EXPECT_EQ(row.totalNs, 0) << row.name;
      EXPECT_TRUE(row.from.empty()) << row.name;
    } else {
      EXPECT_FALSE(row.from.empty()) << row.name;
    }
    if (row.opType == "Conv") {
      EXPECT_GT(row.flops, 0) << row.name << ": shapes known with the run's bindings";
      EXPECT_GT(row.totalNs, 0) << row.name;
      EXPECT_NE(row.fate, OriginFate::Removed) << row.name;
    }
  }
  std::printf("squeezenet1_1: %zu original nodes: %d kept, %d merged, %d removed; %.3f ms painted of %.3f ms\n",
              origins.nodes.size(), fates["kept"], fates["merged"], fates["removed"],
              double(origins.placedNs) / 1e6, double(origins.totalNs) / 1e6);
  // The default pipeline removes squeezenet's 18 Identity nodes and changes nothing else: those are the
  // nodes listed as removed, with no time.
  EXPECT_EQ(fates["removed"], 18);
  for (const OriginTime& row : origins.nodes) {
    EXPECT_EQ(row.fate == OriginFate::Removed, row.opType == "Identity") << row.name;
  }
}

}  // namespace
}  // namespace onyx::profile
