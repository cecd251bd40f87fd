// Fused kernels' time split back over the nodes they replaced, by FLOPs; and the per-node overlay metrics.
#include <gtest/gtest.h>

#include "onnx/onnx_io.h"
#include "support/named_text_model.h"
#include "profile/fused_attribution.h"
#include "profile/node_metrics.h"

namespace onyx::profile {
namespace {

// What elementwise-fusion writes: a node calling a model-local function in domain onyx.fused.
const char* kFused = R"(
<ir_version: 8, opset_import: ["" : 17, "onyx.fused" : 1]>
fused (float[2, 50] x) => (float[2, 50] y) {
  r = Relu <name = "/relu/Relu"> (x)
  y = onyx.fused.Fused_Sigmoid_Mul <name = "/act/Mul_fused"> (r)
}
<domain: "onyx.fused", opset_import: ["" : 17]>
Fused_Sigmoid_Mul (in0) => (out) {
  t0 = Sigmoid <name = "Sigmoid_0"> (in0)
  out = Mul <name = "Mul_1"> (in0, t0)
}
)";

exec::ProfileEvent event(const Node* node, int64_t ns, int iteration, int64_t flops = 0, int64_t bytes = 0) {
  exec::ProfileEvent e;
  e.node = node->id();
  e.name = node->name();
  e.opType = node->opType();
  e.durationNs = ns;
  e.iteration = iteration;
  e.flops = flops;
  e.bytesRead = bytes;
  return e;
}

const Node* nodeNamed(const Model& model, std::string_view name) {
  for (const Node* n : model.graph().nodes())
    if (n->name() == name) return n;
  return nullptr;
}

TEST(FusedAttribution, FusedTimeSplitsOverTheBodyByFlopsAndAddsUp) {
  auto model = testing::parseNamedModelText(kFused);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Node* relu = nodeNamed(**model, "/relu/Relu");
  const Node* fused = nodeNamed(**model, "/act/Mul_fused");
  ASSERT_TRUE(relu && fused);
  Profile profile;
  profile.events = {event(relu, 400, 0), event(fused, 1001, 0), event(relu, 400, 1), event(fused, 999, 1)};

  auto rows = attributeFusedTime(profile, **model);
  ASSERT_EQ(rows.size(), 2u);  // the Relu is not fused: no rows for it
  EXPECT_EQ(rows[0].bodyNode, "Sigmoid_0");
  EXPECT_EQ(rows[1].bodyNode, "Mul_1");
  for (const AttributedTime& row : rows) {
    EXPECT_TRUE(row.attributed);
    EXPECT_EQ(row.fusedNode, fused->id());
    EXPECT_EQ(row.function, "onyx.fused.Fused_Sigmoid_Mul");
    EXPECT_EQ(row.count, 2);
  }
  // Sigmoid costs 4 FLOPs per element, Mul 1: 4/5 and 1/5 of 2000 ns, over 100 elements.
  EXPECT_DOUBLE_EQ(rows[0].share, 0.8);
  EXPECT_DOUBLE_EQ(rows[1].share, 0.2);
  EXPECT_EQ(rows[0].totalNs, 1600);
  EXPECT_EQ(rows[0].totalNs + rows[1].totalNs, 2000);
  EXPECT_EQ(rows[0].flops, 400);
  EXPECT_EQ(rows[1].flops, 100);
}

TEST(FusedAttribution, ProfilesWithoutFusedNodesAttributeNothing) {
  auto model = testing::parseNamedModelText(kFused);
  ASSERT_TRUE(model.ok());
  Profile profile;
  profile.events = {event(nodeNamed(**model, "/relu/Relu"), 10, 0)};
  EXPECT_TRUE(attributeFusedTime(profile, **model).empty());
}

TEST(NodeMetrics, MetricsArePerIterationAndRatesComeFromTotals) {
  auto model = testing::parseNamedModelText(kFused);
  ASSERT_TRUE(model.ok());
  const Node* relu = nodeNamed(**model, "/relu/Relu");
  const Node* fused = nodeNamed(**model, "/act/Mul_fused");
  Profile profile;
  profile.events = {event(relu, 1'000'000, 0, 2'000'000, 4'000'000), event(fused, 3'000'000, 0, 500, 100),
                    event(relu, 1'000'000, 1, 2'000'000, 4'000'000), event(fused, 3'000'000, 1, 500, 100)};
  ProfileMetrics metrics = nodeMetrics(profile);
  EXPECT_EQ(metrics.iterations, 2);
  EXPECT_EQ(metrics.totalNs, 8'000'000);
  const NodeMetrics& r = metrics.nodes.at(relu->id());
  EXPECT_DOUBLE_EQ(metricValue(r, metrics, OverlayMetric::SelfTime), 1.0);  // ms per iteration
  EXPECT_DOUBLE_EQ(metricValue(r, metrics, OverlayMetric::Share), 25.0);
  EXPECT_DOUBLE_EQ(metricValue(r, metrics, OverlayMetric::Flops), 2e6);
  EXPECT_DOUBLE_EQ(metricValue(r, metrics, OverlayMetric::Bytes), 4e6);
  EXPECT_DOUBLE_EQ(metricValue(r, metrics, OverlayMetric::GflopsPerSecond), 2.0);
  EXPECT_DOUBLE_EQ(metricValue(r, metrics, OverlayMetric::GigabytesPerSecond), 4.0);
  EXPECT_EQ(formatMetric(3.2, OverlayMetric::SelfTime), "3.20 ms");
  EXPECT_EQ(formatMetric(0.25, OverlayMetric::SelfTime), "250.0 us");
  EXPECT_EQ(formatMetric(1.5e9, OverlayMetric::Flops), "1.5 GFLOP");
}

}  // namespace
}  // namespace onyx::profile
