// Step Into (passes/rewrite_steps.h): a pass split into its single rewrites. Stepping through them one at a
// time reaches, after K of them, the model the pass makes with rewriteLimit = K, and after all of them the
// model it makes run whole (node ids included); each reports the nodes it matches before it applies and
// the nodes it made after; undoing them in reverse restores the model.
#include <gtest/gtest.h>

#include <algorithm>

#include "passes/rewrite_steps.h"
#include "passes_test_support.h"
#include "support/test_data.h"

namespace onyx::passes::testing {
namespace {

const char* kTransposeChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x) => (float[2, 3] y) {
  a = Transpose <perm = [1, 0]> (x)
  b = Transpose <perm = [1, 0]> (a)
  c = Transpose <perm = [1, 0]> (b)
  d = Transpose <perm = [1, 0]> (c)
  e = Transpose <perm = [1, 0]> (d)
  f = Transpose <perm = [1, 0]> (e)
  y = Relu(f)
})";

// Two MatMul + Add pairs that matmul-add-to-gemm turns into Gemms.
const char* kTwoDenseLayers = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[5, 4] x) => (float[5, 2] y)
<float[4, 3] w1 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[3] b1 = {0.5, -1, 2},
 float[3, 2] w2 = {1, -1, 0.5, 2, -2, 1}, float[2] b2 = {0.25, -0.25}>
{
  m1 = MatMul(x, w1)
  h = Add(m1, b1)
  r = Relu(h)
  m2 = MatMul(r, w2)
  y = Add(m2, b2)
})";

const Node* findNode(const Model& model, NodeId id) {
  return model.graph().findNode(id);
}

std::vector<NodeId> nodeIds(const Model& model) {
  std::vector<NodeId> ids;
  for (const Node* node : model.graph().nodes()) ids.push_back(node->id());
  return ids;
}

Expected<RewriteSteps> split(Model& model, const std::string& name) {
  auto pass = createPass(name);
  EXPECT_TRUE(pass) << name;
  return splitIntoRewrites(model, *pass);
}

// Steps through every rewrite of `passName` on `text`: before each, its matched nodes are in the model;
// after it, those it removed are gone and those it made are there, and the model equals a fresh copy run
// with rewriteLimit = K. Returns the steps, applied; `matchedOps` gets each rewrite's matched op types,
// sorted, read before it applies.
RewriteSteps stepThrough(Model& model, const std::string& text, const std::string& passName,
                         std::vector<std::vector<std::string>>* matchedOps = nullptr) {
  const std::string before = printModelText(model);
  auto steps = split(model, passName);
  EXPECT_TRUE(steps.ok()) << (steps.ok() ? "" : steps.error().toString());
  if (!steps.ok()) return {};
  EXPECT_EQ(printModelText(model), before) << "splitting must leave the model as it was";
  EXPECT_TRUE(steps->countsRewrites);
  EXPECT_EQ(steps->rewrites.size(), steps->whole.rewrites.size());
  for (size_t k = 0; k < steps->rewrites.size(); ++k) {
    const SingleRewrite& rewrite = steps->rewrites[k];
    EXPECT_EQ(rewrite.record.index, int64_t(k) + 1);
    EXPECT_FALSE(rewrite.matchedNodes().empty());
    std::vector<std::string> ops;
    for (NodeId id : rewrite.matchedNodes()) {
      const Node* node = findNode(model, id);
      EXPECT_TRUE(node) << "rewrite " << k + 1 << " matches node #" << id << ", not there";
      if (node) ops.push_back(node->opType());
    }
    std::sort(ops.begin(), ops.end());
    if (matchedOps) matchedOps->push_back(ops);
    rewrite.changes->redo();
    for (const NodeOrigin& removed : rewrite.record.removed)
      EXPECT_FALSE(findNode(model, removed.id)) << "rewrite " << k + 1 << " removed #" << removed.id;
    for (NodeId id : rewrite.resultNodes())
      EXPECT_TRUE(findNode(model, id)) << "rewrite " << k + 1 << " made #" << id << ", not there";

    auto limited = parse(text);
    PassOptions options;
    options.rewriteLimit = int64_t(k) + 1;
    PassStep step = runOnce(*limited, passName, options);
    EXPECT_EQ(printModelText(model), printModelText(*limited)) << "after rewrite " << k + 1;
  }
  return std::move(*steps);
}

TEST(RewriteSteps, TransposeCancellationOneRewriteAtATimeReachesTheWholeRun) {
  auto model = parse(kTransposeChain);
  auto whole = Rewriter::copyModel(*model);
  const std::string original = printModelText(*model);
  RewriteSteps steps = stepThrough(*model, kTransposeChain, "transpose-cancellation");
  ASSERT_EQ(steps.rewrites.size(), 3u);
  // Each rewrite cancels one pair: its root Transpose and the one feeding it are matched and removed.
  for (const SingleRewrite& rewrite : steps.rewrites) {
    EXPECT_EQ(rewrite.record.root.opType, "Transpose");
    EXPECT_EQ(rewrite.record.removed.size(), 2u);
    EXPECT_EQ(rewrite.matchedNodes().size(), 2u);
  }
  EXPECT_EQ(steps.whole.nodesBefore, 7u);
  EXPECT_EQ(steps.whole.nodesAfter, 1u);
  EXPECT_EQ(countNodes(*model), 1u);

  PassStep wholeStep = runOnce(*whole, "transpose-cancellation");
  EXPECT_EQ(printModelText(*model), printModelText(*whole));
  EXPECT_EQ(nodeIds(*model), nodeIds(*whole));
  EXPECT_EQ(wholeStep.rewrites.size(), steps.rewrites.size());

  // Undone in reverse, one at a time, back to the original.
  for (auto rewrite = steps.rewrites.rbegin(); rewrite != steps.rewrites.rend(); ++rewrite)
    rewrite->changes->undo();
  EXPECT_EQ(printModelText(*model), original);
  // And redone, as an undo stack's redo does.
  for (const SingleRewrite& rewrite : steps.rewrites) rewrite.changes->redo();
  EXPECT_EQ(printModelText(*model), printModelText(*whole));
}

TEST(RewriteSteps, FusionsReportTheMatchBeforeAndTheNewNodeAfter) {
  auto model = parse(kTwoDenseLayers);
  auto whole = Rewriter::copyModel(*model);
  std::vector<std::vector<std::string>> matchedOps;
  RewriteSteps steps = stepThrough(*model, kTwoDenseLayers, "matmul-add-to-gemm", &matchedOps);
  ASSERT_EQ(steps.rewrites.size(), 2u);
  // Each matches its Add (the root) and the MatMul feeding it, both there before it applies.
  for (const auto& ops : matchedOps) EXPECT_EQ(ops, (std::vector<std::string>{"Add", "MatMul"}));
  for (const SingleRewrite& rewrite : steps.rewrites) {
    EXPECT_EQ(rewrite.record.root.opType, "Add");
    ASSERT_EQ(rewrite.resultNodes().size(), 1u);
    const Node* made = findNode(*model, rewrite.resultNodes().front());
    ASSERT_TRUE(made);
    EXPECT_EQ(made->opType(), "Gemm");
  }
  runOnce(*whole, "matmul-add-to-gemm");
  EXPECT_EQ(printModelText(*model), printModelText(*whole));
  EXPECT_EQ(nodeIds(*model), nodeIds(*whole));
}

TEST(RewriteSteps, APassThatCountsNoRewritesIsOneStepAndOneThatChangesNothingNone) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  y = Relu(x)
  unused = Exp(x)
  unused2 = Neg(unused)
})");
  auto whole = Rewriter::copyModel(*model);
  const std::string original = printModelText(*model);
  auto steps = split(*model, "dead-code-elimination");
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(printModelText(*model), original);
  EXPECT_FALSE(steps->countsRewrites);
  ASSERT_EQ(steps->rewrites.size(), 1u);
  EXPECT_EQ(steps->rewrites[0].record.index, 0);
  steps->rewrites[0].changes->redo();
  runOnce(*whole, "dead-code-elimination");
  EXPECT_EQ(printModelText(*model), printModelText(*whole));
  EXPECT_EQ(countNodes(*model), 1u);

  auto again = split(*model, "dead-code-elimination");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->whole.changed);
  EXPECT_TRUE(again->rewrites.empty());
}

// On a real model, a fusion that makes model-local functions inside its rewrites: after K rewrites the
// model is the rewriteLimit = K one, after all of them the whole run's, node ids included.
TEST(RewriteSteps, ElementwiseFusionOnBertSmallStepsToTheWholeRun) {
  ONYX_REQUIRE_SHARED(path, "models/bert_small/model.onnx");
  auto loaded = loadModel(path.string());
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  Model& model = **loaded;
  auto whole = Rewriter::copyModel(model);
  auto limited = Rewriter::copyModel(model);
  const std::string original = printModelText(model);
  auto steps = split(model, "elementwise-fusion");
  ASSERT_TRUE(steps.ok()) << steps.error().toString();
  ASSERT_TRUE(steps->countsRewrites);
  ASSERT_GE(steps->rewrites.size(), 10u);
  EXPECT_EQ(printModelText(model), original);

  constexpr size_t kPartway = 5;
  for (size_t k = 0; k < steps->rewrites.size(); ++k) {
    if (k == kPartway) {
      PassOptions options;
      options.rewriteLimit = int64_t(kPartway);
      runOnce(*limited, "elementwise-fusion", options);
      EXPECT_EQ(printModelText(model), printModelText(*limited));
    }
    steps->rewrites[k].changes->redo();
  }
  PassStep wholeStep = runOnce(*whole, "elementwise-fusion");
  EXPECT_EQ(wholeStep.rewrites.size(), steps->rewrites.size());
  EXPECT_EQ(printModelText(model), printModelText(*whole));
  EXPECT_EQ(nodeIds(model), nodeIds(*whole));
  EXPECT_EQ(countNodes(model), wholeStep.nodesAfter);
  for (auto rewrite = steps->rewrites.rbegin(); rewrite != steps->rewrites.rend(); ++rewrite)
    rewrite->changes->undo();
  EXPECT_EQ(printModelText(model), original);
}

}  // namespace
}  // namespace onyx::passes::testing
