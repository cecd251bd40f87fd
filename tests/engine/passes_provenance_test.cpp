// Provenance: the nodes a rewrite makes name the nodes they came from (ir/node_origin.h; given through the
// rewriter to every pass that replaces nodes), the origins survive save/load and a second optimize, and the
// diff pairs fusions and splits through them instead of listing removals and additions.
#include <gtest/gtest.h>

#include <cmath>

#include "diff/diff_format.h"
#include "diff/graph_diff.h"
#include "onnx/node_metadata.h"
#include "passes/pattern_driver.h"
#include "passes_test_support.h"
#include "support/test_data.h"

namespace onyx::passes::testing {
namespace {

const char* kConvBnAdd = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 2, 4, 4] x) => (float[1, 2, 4, 4] y)
  <float[2, 2, 1, 1] w = {1, 0, 0, 1}, float[2] scale = {2, 3}, float[2] shift = {0.5, -1},
   float[2] mean = {0.1, 0.2}, float[2] var = {1, 4}, float[1, 2, 1, 1] bias = {1, 2}> {
  c = Conv(x, w)
  b = BatchNormalization(c, scale, shift, mean, var)
  y = Add(b, bias)
})";

const Node* nodeOf(const Model& model, const std::string& opType) {
  for (const Node* node : model.graph().nodes())
    if (node->opType() == opType) return node;
  return nullptr;
}

std::vector<std::string> originText(const Node& node) {
  std::vector<std::string> text;
  for (const NodeOrigin& origin : nodeOrigins(node))
    text.push_back(origin.opType + " #" + std::to_string(origin.id));
  return text;
}

TEST(Provenance, ConvBnFusionGivesTheConvBothOrigins) {
  auto model = parse(kConvBnAdd);
  NodeId conv = nodeOf(*model, "Conv")->id();
  NodeId bn = nodeOf(*model, "BatchNormalization")->id();
  PassStep step = runOnce(*model, "conv-bn-fusion");
  ASSERT_TRUE(step.changed);
  const Node* fused = nodeOf(*model, "Conv");
  ASSERT_TRUE(fused);
  EXPECT_EQ(fused->id(), conv) << "the pass keeps the Conv and folds into it";
  EXPECT_EQ(originText(*fused), (std::vector<std::string>{"Conv #" + std::to_string(conv),
                                                          "BatchNormalization #" + std::to_string(bn)}));
  EXPECT_TRUE(nodeOrigins(*nodeOf(*model, "Add")).empty()) << "the consumer was only rewired";
  // Undo takes the origins back with the rest of the step.
  step.changes->undo();
  EXPECT_TRUE(nodeOrigins(*nodeOf(*model, "Conv")).empty());
}

std::vector<std::string> originNames(const Node& node) {
  std::vector<std::string> names;
  for (const NodeOrigin& origin : nodeOrigins(node)) names.push_back(origin.name);
  return names;
}

// Ids number the nodes of one loaded model: a node that had no origins when saved is, after loading, known by
// its id in that file. Names are what stays the same across files (exporters name every node).
TEST(Provenance, SurvivesSaveLoadAndASecondOptimize) {
  auto model = parse(kConvBnAdd);
  Rewriter rewriter(*model);
  for (Node* node : model->graph().nodes()) rewriter.renameNode(node, "/block/" + node->opType());
  NodeId conv = nodeOf(*model, "Conv")->id();
  NodeId bn = nodeOf(*model, "BatchNormalization")->id();
  runOnce(*model, "conv-bn-fusion");
  auto bytes = serializeModel(*model);
  ASSERT_TRUE(bytes.ok()) << bytes.error().toString();
  auto loaded = parseModel(*bytes, {}, "saved");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  const Node* reloaded = nodeOf(**loaded, "Conv");
  EXPECT_EQ(originText(*reloaded), originText(*nodeOf(*model, "Conv")));
  EXPECT_EQ(originText(*reloaded), (std::vector<std::string>{"Conv #" + std::to_string(conv),
                                                             "BatchNormalization #" + std::to_string(bn)}));
  std::vector<StringPair> metadata = nodeMetadataProps(*reloaded);
  ASSERT_EQ(metadata.size(), 1u);
  EXPECT_EQ(metadata[0].key, "onyx.origin") << "kept as the node's metadata_props, as in the file";
  // Folding the Add too: the Conv keeps naming the nodes of the model as first loaded, not the saved Conv.
  runOnce(**loaded, "conv-add-fusion");
  EXPECT_EQ(originNames(*nodeOf(**loaded, "Conv")),
            (std::vector<std::string>{"/block/Conv", "/block/BatchNormalization", "/block/Add"}));
  EXPECT_EQ(originText(*nodeOf(**loaded, "Conv"))[1], "BatchNormalization #" + std::to_string(bn));
  auto again = serializeModel(**loaded);
  ASSERT_TRUE(again.ok());
  auto twice = parseModel(*again, {}, "saved twice");
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(originText(*nodeOf(**twice, "Conv")), originText(*nodeOf(**loaded, "Conv")));
}

TEST(Provenance, ElementwiseFusionNamesEveryNodeOfTheGroup) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  a = Neg(x)
  b = Exp(a)
  y = Abs(b)
})");
  std::vector<std::string> expected;
  for (const Node* node : model->graph().nodes())
    expected.push_back(node->opType() + " #" + std::to_string(node->id()));
  runOnce(*model, "elementwise-fusion");
  ASSERT_EQ(model->graph().nodeCount(), 1u);
  std::vector<std::string> origins = originText(**model->graph().nodes().begin());
  std::sort(origins.begin(), origins.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(origins, expected);
}

// A test-only split: Relu(x) becomes Relu(Identity(x)), two nodes made from one.
class SplitRelu final : public PatternPass {
 public:
  std::string_view name() const override { return "test-split-relu"; }
  std::string_view summary() const override { return "Relu becomes Identity then Relu"; }

 protected:
  std::span<const std::string_view> rootOps() const override {
    static constexpr std::string_view kOps[] = {"Relu"};
    return kOps;
  }
  PatternResult matchAndRewrite(Node& relu, PatternContext& context) override {
    Node* copy = context.addNode("Identity", {relu.input(0)}, "split_identity", "split_copy", &relu);
    Node* made = context.addNode("Relu", {copy->output(0)}, "split_relu", "split_out", &relu);
    replaceNode(context.rewriter(), &relu, {made->output(0)});
    return PatternResult::rewritten("relus-split");
  }
};

TEST(ProvenanceDiff, PairsAFusionInsteadOfARemovalAndAChange) {
  auto before = parse(kConvBnAdd);
  auto after = Rewriter::copyModel(*before);
  runOnce(*after, "conv-bn-fusion");
  diff::ModelDiff plain = diff::diffModels(*before, *after, diff::MatchBy::NodeIds);
  EXPECT_EQ(plain.summary.fusions, 1u);
  EXPECT_EQ(plain.summary.nodesRemoved, 1u) << "the summary still counts the folded node";
  size_t fusions = 0;
  for (const diff::Change& change : plain.changes) {
    EXPECT_NE(change.kind, diff::ChangeKind::NodeRemoved);
    if (change.kind != diff::ChangeKind::NodesFused) continue;
    ++fusions;
    EXPECT_EQ(change.beforeNodes.size(), 2u);
    EXPECT_EQ(diff::formatChange(change).find("~ node Conv (#"), 0u) << diff::formatChange(change);
    EXPECT_NE(diff::formatChange(change).find("fused from Conv (#"), std::string::npos);
    EXPECT_NE(diff::formatChange(change).find("BatchNormalization (#"), std::string::npos);
  }
  EXPECT_EQ(fusions, 1u);
  // The canvas still colours the folded BatchNormalization as removed.
  EXPECT_EQ(plain.statusBefore(nodeOf(*before, "BatchNormalization")->id()), diff::NodeStatus::Removed);
}

TEST(ProvenanceDiff, PairsASplitInsteadOfARemovalAndTwoAdditions) {
  auto before = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  r = Relu(x)
  y = Neg(r)
})");
  auto after = Rewriter::copyModel(*before);
  PassManager manager(*after);
  SplitRelu split;
  ASSERT_TRUE(manager.runPass(split).ok());
  diff::ModelDiff diff = diff::diffModels(*before, *after, diff::MatchBy::NodeIds);
  EXPECT_EQ(diff.summary.splits, 1u) << diff::formatDiffText(diff);
  EXPECT_EQ(diff.summary.nodesAdded, 2u) << diff::formatDiffText(diff);
  EXPECT_EQ(diff.summary.nodesRemoved, 1u) << diff::formatDiffText(diff);
  bool found = false;
  for (const diff::Change& change : diff.changes) {
    EXPECT_NE(change.kind, diff::ChangeKind::NodeAdded) << diff::formatChange(change);
    EXPECT_NE(change.kind, diff::ChangeKind::NodeRemoved) << diff::formatChange(change);
    if (change.kind != diff::ChangeKind::NodeSplit) continue;
    found = true;
    EXPECT_EQ(change.afterNodes.size(), 2u);
    EXPECT_NE(diff::formatChange(change).find("split into Identity 'split_identity'"), std::string::npos)
        << diff::formatChange(change);
  }
  EXPECT_TRUE(found);
}

size_t entries(const diff::ModelDiff& diff, diff::ChangeKind kind) {
  return size_t(std::count_if(diff.changes.begin(), diff.changes.end(),
                              [&](const diff::Change& change) { return change.kind == kind; }));
}

// On a real model: every call elementwise-fusion makes in bert_small names the nodes of its group, and the
// diff lists one fusion per fused group (no removals), also between files, where origins pair by name.
// (The shared resnet18 was exported with its BatchNormalizations already folded: nothing for conv-bn-fusion.)
TEST(ProvenanceModels, BertSmallElementwiseFusionListsOneFusionPerGroup) {
  ONYX_REQUIRE_SHARED(folder, "models/bert_small");
  auto before = loadModel(folder / "model.onnx");
  ASSERT_TRUE(before.ok()) << before.error().toString();
  auto after = Rewriter::copyModel(**before);
  PassStep step = runOnce(*after, "elementwise-fusion");
  const int64_t groups = counter(step, "groups-fused");
  ASSERT_GT(groups, 0) << skipReasons(step);
  int64_t calls = 0;
  for (const Node* node : after->graph().nodes()) {
    if (node->domain() != "onyx.fused") continue;
    ++calls;
    EXPECT_GE(nodeOrigins(*node).size(), 2u) << node->describe();
    for (const NodeOrigin& origin : nodeOrigins(*node)) EXPECT_TRUE((*before)->graph().findNode(origin.id));
  }
  EXPECT_EQ(calls, groups);
  diff::ModelDiff diff = diff::diffModels(**before, *after, diff::MatchBy::NodeIds);
  EXPECT_EQ(int64_t(diff.summary.fusions), groups) << diff::formatSummary(diff.summary);
  EXPECT_EQ(entries(diff, diff::ChangeKind::NodeRemoved), 0u) << diff::formatSummary(diff.summary);
  auto bytes = serializeModel(*after);
  ASSERT_TRUE(bytes.ok());
  auto loaded = parseModel(*bytes, {}, "optimized");
  ASSERT_TRUE(loaded.ok());
  diff::ModelDiff files = diff::diffModels(**before, **loaded, diff::MatchBy::Structure);
  EXPECT_EQ(int64_t(files.summary.fusions), groups) << diff::formatSummary(files.summary);
  EXPECT_EQ(entries(files, diff::ChangeKind::NodeRemoved), 0u) << diff::formatSummary(files.summary);
}

// The shared resnet18 was exported with its BatchNormalizations folded into the Convs. Unfolding them again
// gives the resnet18 a training-mode export has: each Conv(x, W, B) becomes Conv(x, W / k) followed by
// BatchNormalization(scale g, bias B + k * mean, mean, var), k = g / sqrt(var + eps), the same function.
// g, mean and var vary per channel so no pair folds to the identity.
size_t unfoldBatchNorms(Model& model) {
  Rewriter rewriter(model);
  Graph& graph = model.graph();
  std::vector<Node*> convs;
  for (Node* node : graph.nodes())
    if (node->opType() == "Conv" && node->inputs().size() == 3 && node->input(1)->isInitializer() &&
        node->input(2)->isInitializer())
      convs.push_back(node);
  for (Node* conv : convs) {
    const Tensor& weights = *conv->input(1)->initializer();
    const Tensor& bias = *conv->input(2)->initializer();
    const int64_t channels = weights.dims()[0];
    const size_t perChannel = weights.values<float>().size() / size_t(channels);
    std::vector<float> w(weights.values<float>().begin(), weights.values<float>().end());
    std::vector<float> scale(channels), shift(channels), mean(channels), var(channels);
    for (int64_t c = 0; c < channels; ++c) {
      scale[c] = 1.0f + 0.1f * float(c % 5);
      mean[c] = 0.01f * float(c % 7);
      var[c] = 0.5f + 0.25f * float(c % 3);
      const float k = scale[c] / std::sqrt(var[c] + 1e-5f);
      shift[c] = bias.values<float>()[c] + k * mean[c];
      for (size_t i = 0; i < perChannel; ++i) w[size_t(c) * perChannel + i] /= k;
    }
    const std::string base = conv->name() + "_unfolded";
    auto vector = [&](const std::string& what, const std::vector<float>& values) {
      return rewriter.addInitializer(graph, base + "_" + what, Tensor::fromValues(DataType::Float, {channels}, values));
    };
    Value* newWeights = rewriter.addInitializer(
        graph, base + "_weight", Tensor::fromValues(DataType::Float, weights.dims(), w));
    Node* bare = rewriter.addNode(graph, {.opType = "Conv", .name = conv->name(), .inputs = {conv->input(0), newWeights},
                                          .outputNames = {base + "_conv"}, .attributes = conv->attributes()},
                                  conv);
    Node* norm = rewriter.addNode(graph,
                                  {.opType = "BatchNormalization", .name = base + "_bn",
                                   .inputs = {bare->output(0), vector("scale", scale), vector("shift", shift),
                                              vector("mean", mean), vector("var", var)},
                                   .outputNames = {base + "_bn_out"}},
                                  conv);
    rewriter.replaceAllUsesWith(conv->output(0), norm->output(0));
    rewriter.removeNode(conv);
  }
  return convs.size();
}

TEST(ProvenanceModels, Resnet18ConvBnFoldingNamesBothOriginsAndDiffsAsOneFusionPerPair) {
  ONYX_REQUIRE_SHARED(folder, "models/resnet18");
  auto loaded = loadModel(folder / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  const size_t pairs = unfoldBatchNorms(**loaded);
  ASSERT_EQ(pairs, 20u) << "resnet18 has 20 Convs";
  auto bytes = serializeModel(**loaded);
  ASSERT_TRUE(bytes.ok());
  auto before = parseModel(*bytes, {}, "resnet18 with BatchNormalizations");
  ASSERT_TRUE(before.ok()) << before.error().toString();
  auto after = Rewriter::copyModel(**before);
  PassStep step = runOnce(*after, "conv-bn-fusion");
  ASSERT_TRUE(step.changed) << skipReasons(step);
  size_t convs = 0;
  for (const Node* node : after->graph().nodes()) {
    EXPECT_NE(node->opType(), "BatchNormalization") << "every pair folds";
    if (node->opType() != "Conv") continue;
    ++convs;
    std::vector<NodeOrigin> origins = nodeOrigins(*node);
    ASSERT_EQ(origins.size(), 2u) << node->describe();
    EXPECT_EQ(origins[0].opType, "Conv");
    EXPECT_EQ(origins[0].name, node->name());
    EXPECT_EQ(origins[1].opType, "BatchNormalization");
    EXPECT_EQ(origins[1].name, node->name() + "_unfolded_bn");
  }
  EXPECT_EQ(convs, pairs);
  diff::ModelDiff diff = diff::diffModels(**before, *after, diff::MatchBy::NodeIds);
  EXPECT_EQ(diff.summary.fusions, pairs) << diff::formatSummary(diff.summary);
  EXPECT_EQ(entries(diff, diff::ChangeKind::NodesFused), pairs);
  EXPECT_EQ(entries(diff, diff::ChangeKind::NodeRemoved), 0u) << diff::formatSummary(diff.summary);
  // Saved and loaded again, the origins are the same.
  auto saved = serializeModel(*after);
  ASSERT_TRUE(saved.ok());
  auto reloaded = parseModel(*saved, {}, "optimized resnet18");
  ASSERT_TRUE(reloaded.ok());
  for (const Node* node : (*reloaded)->graph().nodes()) {
    if (node->opType() == "Conv") {
      EXPECT_EQ(nodeOrigins(*node).size(), 2u) << node->describe();
    }
  }
}

}  // namespace
}  // namespace onyx::passes::testing
