// The hierarchy the graph view opens big graphs with: module paths from PyTorch 2.x (dynamo) metadata,
// name scopes, and synthetic groups cut from the topological order where a level would still be too big,
// so no level shows more than about 200 boxes unasked.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "ir/module_path.h"
#include "ir/rewriter.h"
#include "ir/scopes.h"
#include "layout/layout_service.h"
#include "layout/level_view.h"
#include "onnx/node_metadata.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::layout {
namespace {

constexpr size_t kMaxBoxes = 200;

const std::filesystem::path kTinyLlama =
    std::filesystem::path(ONYX_SOURCE_DIR) / "tests/data/dynamo/tiny_llama_dynamo.onnx";

size_t boxes(const LevelView& level) {
  return level.nodeItemCount() + level.groupItemCount();
}

size_t nodesAccountedFor(const LevelView& level) {
  size_t count = level.nodeItemCount() + level.foldedConstants;
  for (const Item& item : level.items) count += item.kind == ItemKind::Group ? item.nodeCount : 0;
  return count;
}

// Opens every scope of the tree as a level with the default request, as the canvas does when a group is
// double-clicked, and calls `check` on each.
void forEveryLevel(const Graph& graph, const ScopeTree& scopes,
                   const std::function<void(const Scope&, const LevelView&)>& check) {
  std::function<void(const Scope&)> visit = [&](const Scope& scope) {
    LevelRequest request;
    request.graph = &graph;
    request.scopePath = scope.path;
    auto level = buildLevel(request, scopes);
    ASSERT_TRUE(level.ok()) << level.error().toString();
    check(scope, *level);
    for (const auto& child : scope.children) visit(*child);
  };
  visit(scopes.root());
}

TEST(ModulePath, ReadsPythonListsOfStrings) {
  auto names = parsePythonStringList(R"(['', 'model.layers.0', "it's", 'a\'b'])");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, (std::vector<std::string>{"", "model.layers.0", "it's", "a'b"}));
  EXPECT_EQ(parsePythonStringList("[]")->size(), 0u);
  EXPECT_FALSE(parsePythonStringList("['unterminated"));
  EXPECT_FALSE(parsePythonStringList("model.layers.0"));
  EXPECT_FALSE(parsePythonStringList("['a' 'b']"));
}

TEST(ModulePath, NameScopesAndNamespaceGiveTheModulePath) {
  std::vector<StringPair> scopes{
      {"pkg.torch.onnx.name_scopes",
       "['', 'model', 'model.layers.0', 'model.layers.0.self_attn', 'model.layers.0.self_attn.q_proj', "
       "'linear_3']"}};
  EXPECT_EQ(modulePathFromMetadata(scopes), "/model/layers.0/self_attn/q_proj");
  std::vector<StringPair> space{
      {"namespace",
       ": __main__.Net/network: torch.nn.Sequential/network.0: torch.nn.Linear/linear: aten.linear.default"}};
  EXPECT_EQ(modulePathFromMetadata(space), "/network/0");
  // A node of the root module itself: the root path.
  EXPECT_EQ(modulePathFromMetadata({{"pkg.torch.onnx.name_scopes", "['', 'add_7']"}}), "");
  EXPECT_FALSE(modulePathFromMetadata({{"pkg.torch.onnx.stack_trace", "File x.py"}}));
  EXPECT_FALSE(modulePathFromMetadata({}));
}

TEST(Hierarchy, DynamoExportOpensGroupedByModule) {
  auto model = loadModel(kTinyLlama);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Graph& graph = (*model)->graph();
  ASSERT_GT(graph.nodeCount(), kDefaultCollapseThreshold);  // big enough not to open flat
  const Node* first = *graph.nodes().begin();
  EXPECT_TRUE(first->name().starts_with("node_"));  // the names say nothing of the module
  EXPECT_TRUE(first->scopePath().empty());
  EXPECT_FALSE(nodeMetadataProps(*first).empty());

  ScopeTree scopes = ScopeTree::build(graph);
  for (int layer = 0; layer < 4; ++layer) {
    std::string path = "/model/layers." + std::to_string(layer);
    ASSERT_TRUE(scopes.find(path)) << path;
    EXPECT_TRUE(scopes.find(path + "/self_attn/q_proj")) << path;
    EXPECT_TRUE(scopes.find(path + "/mlp/act_fn")) << path;
    EXPECT_FALSE(scopes.find(path)->synthetic);
  }
  EXPECT_TRUE(scopes.root().nodes.empty());  // every node has its module

  LevelRequest request;
  request.graph = &graph;
  LevelView top = buildLevel(request, scopes).value();
  EXPECT_EQ(top.nodeItemCount(), 0u);
  EXPECT_NE(top.find("g:/model"), LevelView::npos);
  EXPECT_NE(top.find("g:/lm_head"), LevelView::npos);

  request.scopePath = "/model";
  LevelView inside = buildLevel(request, scopes).value();
  for (int layer = 0; layer < 4; ++layer) {
    EXPECT_NE(inside.find("g:/model/layers." + std::to_string(layer)), LevelView::npos) << layer;
  }
  EXPECT_NE(inside.find("g:/model/embed_tokens"), LevelView::npos);
  EXPECT_LT(boxes(inside), 20u);

  forEveryLevel(graph, scopes, [&](const Scope& scope, const LevelView& level) {
    EXPECT_LE(boxes(level), kMaxBoxes) << scope.path;
    EXPECT_EQ(nodesAccountedFor(level), scope.totalNodes) << scope.path;
  });
}

TEST(Hierarchy, ModuleMetadataSurvivesASave) {
  auto model = loadModel(kTinyLlama);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto bytes = serializeModel(**model);
  ASSERT_TRUE(bytes.ok());
  auto again = parseModel(*bytes, {}, "saved");
  ASSERT_TRUE(again.ok()) << again.error().toString();
  ScopeTree before = ScopeTree::build((*model)->graph());
  ScopeTree after = ScopeTree::build((*again)->graph());
  EXPECT_EQ(after.scopeCount(), before.scopeCount());
  auto it = (*again)->graph().nodes().begin();
  for (const Node* node : (*model)->graph().nodes()) {
    EXPECT_EQ(after.scopeOf((*it)->id())->path, before.scopeOf(node->id())->path) << node->name();
    ++it;
  }
}

// 40 unnamed blocks (MatMul, Add, Relu, MatMul, Mul, residual Add): no names, no metadata, 240 nodes.
std::string repeatedBlocksText(int blocks) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
blocks (float[N, 8] h0, float[8, 8] w, float[8] b, float[8] s) => (float[N, 8] out) {
)";
  for (int i = 0; i < blocks; ++i) {
    std::string h = "h" + std::to_string(i), n = "h" + std::to_string(i + 1), p = "t" + std::to_string(i) + "_";
    text += "  " + p + "a = MatMul(" + h + ", w)\n";
    text += "  " + p + "b = Add(" + p + "a, b)\n";
    text += "  " + p + "c = Relu(" + p + "b)\n";
    text += "  " + p + "d = MatMul(" + p + "c, w)\n";
    text += "  " + p + "e = Mul(" + p + "d, s)\n";
    text += "  " + n + " = Add(" + h + ", " + p + "e)\n";
  }
  text += "  out = Identity(h" + std::to_string(blocks) + ")\n}\n";
  return text;
}

TEST(Hierarchy, UnnamedRepeatedBlocksBecomeGroupsOfOneBlockEach) {
  auto model = parseModelText(repeatedBlocksText(40));
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Graph& graph = (*model)->graph();
  ScopeTree scopes = ScopeTree::build(graph);
  const Scope& root = scopes.root();
  ASSERT_GE(root.children.size(), 30u);
  size_t wholeBlocks = 0;
  std::map<std::string, size_t> titles;
  for (const auto& child : root.children) {
    EXPECT_TRUE(child->synthetic);
    wholeBlocks += child->totalNodes == 6;
    titles[child->name.substr(0, child->name.find(" #"))]++;
  }
  // Cut at the residual Adds, where one value crosses: every group but the ends is one block.
  EXPECT_GE(wholeBlocks, root.children.size() - 2);
  EXPECT_GE(titles.begin()->second + 2, root.children.size()) << titles.begin()->first;
  EXPECT_EQ(titles.begin()->first.find("MatMul"), 0u) << titles.begin()->first;

  LevelRequest request;
  request.graph = &graph;
  LevelView top = buildLevel(request, scopes).value();
  EXPECT_LE(boxes(top), kMaxBoxes);
  EXPECT_EQ(top.groupItemCount(), root.children.size());
  forEveryLevel(graph, scopes, [&](const Scope& scope, const LevelView& level) {
    EXPECT_EQ(nodesAccountedFor(level), scope.totalNodes) << scope.path;
  });
  // Without splitting the same graph has one flat root.
  EXPECT_EQ(ScopeTree::build(graph, {.maxBoxes = 0}).root().children.size(), 0u);
}

TEST(Hierarchy, SsdliteHasNoLevelOverTwoHundredBoxes) {
  ONYX_REQUIRE_SHARED(models, "models");
  auto model = loadModel(models / "ssdlite320_mobilenet_v3_large" / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Graph& graph = (*model)->graph();
  ScopeTree scopes = ScopeTree::build(graph);
  LevelRequest request;
  request.graph = &graph;
  LevelView top = buildLevel(request, scopes).value();
  // Not one 3,367-node group beside 20 Identity nodes: /m is framed and its parts are groups.
  EXPECT_GT(top.groupItemCount(), 10u);
  ASSERT_EQ(top.clusters.size(), 1u);
  EXPECT_EQ(top.clusters[0].scopePath, "/m");
  size_t levels = 0;
  forEveryLevel(graph, scopes, [&](const Scope& scope, const LevelView& level) {
    ++levels;
    EXPECT_LE(boxes(level), kMaxBoxes) << scope.path;
    // Ports too: the last post-processing run reads 271 values, one port per producing run instead.
    EXPECT_LE(level.items.size(), kMaxBoxes) << scope.path;
    EXPECT_EQ(nodesAccountedFor(level), scope.totalNodes) << scope.path;
    for (const Item& item : level.items) {
      EXPECT_FALSE(item.kind == ItemKind::Group && item.title.empty()) << item.key;  // labelled
    }
  });
  EXPECT_GT(levels, 20u);
}

TEST(Hierarchy, DenseLevelsOfGroupsGetTheFastDotProfile) {
  // Few boxes but many merged edges between groups (default dot took 3.4 s on ssdlite's top level):
  // a small level with more than two edges per item is laid out with the fast profile.
  auto level = std::make_shared<LevelView>();
  for (int i = 0; i < 12; ++i) {
    Item item;
    item.kind = ItemKind::Group;
    item.key = "g:/" + std::to_string(i);
    item.title = std::to_string(i);
    item.width = 80;
    item.height = 30;
    level->items.push_back(item);
  }
  for (size_t from = 0; from < 12; ++from) {
    for (size_t to = from + 1; to < 12; to += 2) level->edges.push_back({.from = from, .to = to});
  }
  ASSERT_GT(level->edges.size(), 2 * level->items.size());
  LayoutService service;
  LevelRequest request;
  auto dense = service.layoutNow(LayoutKey::of(request, 1, 0), level);
  ASSERT_TRUE(dense.ok()) << dense.error().toString();
  EXPECT_EQ(dense.value()->profile, DotProfile::Fast);
  level->edges.resize(12);
  auto sparse = service.layoutNow(LayoutKey::of(request, 2, 0), level);
  ASSERT_TRUE(sparse.ok());
  EXPECT_EQ(sparse.value()->profile, DotProfile::Quality);
}

TEST(Hierarchy, ManyEnteringValuesShareOnePortPerProducingScope) {
  // 60 producers in scope /a, each read by one consumer in /b: 60 values cross into /b.
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
fan (float[4] x) => (float[4] out) {
)";
  std::string sum = "x";
  for (int i = 0; i < 60; ++i) text += "  p" + std::to_string(i) + " = Relu(x)\n";
  for (int i = 0; i < 60; ++i) {
    std::string next = "s" + std::to_string(i);
    text += "  " + next + " = Add(" + sum + ", p" + std::to_string(i) + ")\n";
    sum = next;
  }
  text += "  out = Identity(" + sum + ")\n}\n";
  auto model = parseModelText(text);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  Graph& graph = (*model)->graph();
  // Name them into scopes /a (producers) and /b (consumers).
  Rewriter rewriter(**model);
  for (Node* node : graph.nodes()) {
    rewriter.renameNode(node, (node->opType() == "Relu" ? "/a/Relu_" : "/b/") + std::to_string(node->id()));
  }
  ScopeTree scopes = ScopeTree::build(graph);
  LevelRequest request;
  request.graph = &graph;
  request.scopePath = "/b";
  LevelView inside = buildLevel(request, scopes).value();
  size_t inPorts = 0;
  const Edge* merged = nullptr;
  for (const Item& item : inside.items) inPorts += item.kind == ItemKind::PortIn;
  for (const Edge& edge : inside.edges) {
    if (inside.items[edge.from].key == "pin@/a") merged = &edge;
  }
  // x (a graph input) keeps its own port; the 60 values from /a share one.
  EXPECT_EQ(inPorts, 2u);
  ASSERT_NE(inside.find("pin@/a"), LevelView::npos);
  EXPECT_EQ(inside.items[inside.find("pin@/a")].title, "from a");
  ASSERT_TRUE(merged);
  EXPECT_EQ(nodesAccountedFor(inside), scopes.find("/b")->totalNodes);
  size_t carried = 0;
  for (const Edge& edge : inside.edges) {
    if (inside.items[edge.from].key == "pin@/a") carried += edge.valueCount;
  }
  EXPECT_EQ(carried, 60u);
}

}  // namespace
}  // namespace onyx::layout
