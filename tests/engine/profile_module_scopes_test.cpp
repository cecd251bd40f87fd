// A PyTorch 2.x (dynamo) export names its nodes "node_linear_3" and records the module in metadata: the
// profile's flame graph and a pass's scope follow that module path (scopePathOf), as the graph view does.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/module_path.h"
#include "ir/rewriter.h"
#include "ir/scopes.h"
#include "onnx/onnx_io.h"
#include "passes/pass.h"
#include "profile/profile.h"
#include "profile/profile_summary.h"

namespace onyx {
namespace {

const std::filesystem::path kTinyLlama =
    std::filesystem::path(ONYX_SOURCE_DIR) / "tests/data/dynamo/tiny_llama_dynamo.onnx";

const profile::FlameNode* childNamed(const profile::FlameNode& parent, std::string_view name) {
  for (const auto& child : parent.children)
    if (child->name == name) return child.get();
  return nullptr;
}

// One 1 µs event per node of the main graph, as a run of the model records them.
profile::Profile oneEventPerNode(const Graph& graph) {
  profile::Profile profile;
  for (const Node* node : graph.nodes()) {
    exec::ProfileEvent event;
    event.node = node->id();
    event.name = node->name();
    event.opType = node->opType();
    event.durationNs = 1000;
    profile.events.push_back(event);
  }
  profile.mapped.assign(profile.events.size(), true);
  return profile;
}

TEST(ProfileModuleScopes, TheFlameGraphOfADynamoExportFollowsItsModules) {
  auto model = loadModel(kTinyLlama);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Graph& graph = (*model)->graph();
  profile::Profile profile = oneEventPerNode(graph);
  // Its names alone say nothing of the modules: every node would hang under the model.
  EXPECT_TRUE(profile::eventScope(profile.events.front()).empty());
  EXPECT_FALSE(childNamed(*profile::buildFlameTree(profile).root, "model"));

  const profile::MappingStats stats = profile::mapOntoModel(profile, **model);
  EXPECT_EQ(stats.mapped, graph.nodeCount());
  const profile::FlameTree tree = profile::buildFlameTree(profile);
  const profile::FlameNode* top = childNamed(*tree.root, "model");
  ASSERT_TRUE(top);
  ASSERT_TRUE(childNamed(*tree.root, "lm_head"));
  const profile::FlameNode* layer = childNamed(*top, "layers.1");
  ASSERT_TRUE(layer);
  EXPECT_EQ(layer->path, "/model/layers.1");
  ASSERT_TRUE(childNamed(*layer, "self_attn"));
  ASSERT_TRUE(childNamed(*layer, "mlp"));
  const ScopeTree scopes = ScopeTree::build(graph);
  EXPECT_EQ(layer->totalNs, 1000 * static_cast<int64_t>(scopes.find("/model/layers.1")->totalNodes));
  EXPECT_EQ(tree.root->totalNs, 1000 * static_cast<int64_t>(graph.nodeCount()));

  // The run's own profile (already mapped by node id) gets the same scopes.
  profile::Profile own = oneEventPerNode(graph);
  profile::assignScopes(own, **model);
  EXPECT_EQ(own.events.front().scope, scopePathOf(*graph.findNode(own.events.front().node)));
  EXPECT_FALSE(own.events.front().scope.empty());
}

TEST(ProfileModuleScopes, APassAppliesToAModulePath) {
  auto model = loadModel(kTinyLlama);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  Model& m = **model;
  const ScopeTree scopes = ScopeTree::build(m.graph());
  Rewriter rewriter(m);
  passes::PassContext layer1(m, rewriter, "/model/layers.1");
  size_t inside = 0;
  for (const Node* node : m.graph().nodes()) inside += layer1.inScope(*node);
  ASSERT_TRUE(scopes.find("/model/layers.1"));
  EXPECT_EQ(inside, scopes.find("/model/layers.1")->totalNodes);
  EXPECT_GT(inside, 10u);
  passes::PassContext attention(m, rewriter, "/model/layers.1/self_attn");
  size_t attentionNodes = 0;
  for (const Node* node : m.graph().nodes()) attentionNodes += attention.inScope(*node);
  EXPECT_EQ(attentionNodes, scopes.find("/model/layers.1/self_attn")->totalNodes);
  EXPECT_LT(attentionNodes, inside);
}

}  // namespace
}  // namespace onyx
