// Acceptance of the passes issue: the diff of a model against its optimized version lists exactly the
// changes the passes made. The passes' own record is the change events their edits emitted; the diff
// (matching by node id, as the GUI's steps are of one lineage) must name the same added and removed nodes,
// and every node it calls changed must be one the passes touched.
#include <gtest/gtest.h>

#include <set>

#include "diff/graph_diff.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "support/test_data.h"

namespace onyx {
namespace {

struct Recorded {
  std::set<NodeId> added, removed, touched;
};

void expectDiffMatchesThePasses(const std::string& name) {
  const std::string relative = "models/" + name + "/model.onnx";
  ONYX_REQUIRE_SHARED(path, relative);
  auto original = loadModel(path);
  ASSERT_TRUE(original.ok()) << original.error().toString();
  std::unique_ptr<Model> optimized = Rewriter::copyModel(**original);

  Recorded passes;
  const Graph* main = &optimized->graph();
  int token = optimized->subscribe([&](const ChangeEvent& e) {
    if (e.graph != main || e.node == kNoNode) return;
    switch (e.kind) {
      case ChangeEvent::Kind::NodeAdded:
        passes.added.insert(e.node);
        break;
      case ChangeEvent::Kind::NodeRemoved:
        // A node a pass created and a later pass removed is no change at all.
        if (!passes.added.erase(e.node)) passes.removed.insert(e.node);
        passes.touched.erase(e.node);
        break;
      default:
        passes.touched.insert(e.node);
    }
  });
  passes::PassManager manager(*optimized);
  passes::PipelineResult result = manager.run(passes::defaultPipeline());
  optimized->unsubscribe(token);
  ASSERT_FALSE(result.error) << result.error->toString();
  ASSERT_LT(result.nodesAfter, result.nodesBefore) << name << ": the pipeline should change something";

  diff::ModelDiff diff = diff::diffModels(**original, *optimized, diff::MatchBy::NodeIds);
  Recorded listed;
  for (const diff::Change& change : diff.changes) {
    if (!change.scope.empty()) continue;  // bodies and function bodies: their nodes are not main-graph events
    if (change.kind == diff::ChangeKind::NodeAdded) listed.added.insert(change.afterNode);
    if (change.kind == diff::ChangeKind::NodeRemoved) listed.removed.insert(change.beforeNode);
    // A fusion or split entry lists, through the nodes' origins, nodes removed and added together.
    if (change.kind == diff::ChangeKind::NodesFused || change.kind == diff::ChangeKind::NodeSplit) {
      for (NodeId node : change.beforeNodes)
        if (diff.statusBefore(node) == diff::NodeStatus::Removed) listed.removed.insert(node);
      for (NodeId node : change.afterNodes)
        if (diff.statusAfter(node) == diff::NodeStatus::Added) listed.added.insert(node);
    }
    if (diff::isNodeChange(change.kind) && change.kind != diff::ChangeKind::NodeAdded &&
        change.kind != diff::ChangeKind::NodeRemoved)
      listed.touched.insert(change.afterNode);
  }
  EXPECT_FALSE(passes.removed.empty()) << name;
  EXPECT_EQ(listed.added, passes.added) << name;
  EXPECT_EQ(listed.removed, passes.removed) << name;
  for (NodeId node : listed.touched)
    EXPECT_TRUE(passes.touched.count(node) || passes.added.count(node))
        << name << ": the diff says node #" << node << " changed, but no pass edited it";
  EXPECT_EQ(diff.summary.nodesAdded, passes.added.size());
  EXPECT_EQ(diff.summary.nodesRemoved, passes.removed.size());
}

TEST(DiffOfOptimizedModel, Squeezenet) { expectDiffMatchesThePasses("squeezenet1_1"); }
TEST(DiffOfOptimizedModel, BertSmall) { expectDiffMatchesThePasses("bert_small"); }
TEST(DiffOfOptimizedModel, Efficientnet) { expectDiffMatchesThePasses("efficientnet_b0"); }

}  // namespace
}  // namespace onyx
