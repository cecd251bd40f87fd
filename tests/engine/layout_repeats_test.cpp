// Groups with the same structure (transformer layers, repeated blocks) are marked "×N alike" at their
// level: structureHash ignores names and weights but not ops, attributes or wiring.
#include <gtest/gtest.h>

#include <string>

#include "ir/rewriter.h"
#include "ir/scope_structure.h"
#include "ir/scopes.h"
#include "layout/item_text.h"
#include "layout/level_view.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::layout {
namespace {

// Two four-node blocks a and b in a chain, each Softmax over `axisB` for block b.
std::shared_ptr<Model> twoBlocks(int axisB) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
  a1 = MatMul(x, w)
  a2 = Relu(a1)
  a3 = Softmax<axis = -1>(a2)
  a4 = Add(a3, x)
  b1 = MatMul(a4, w)
  b2 = Relu(b1)
  b3 = Softmax<axis = )" + std::to_string(axisB) + R"(>(b2)
  y = Add(b3, a4)
})";
  auto parsed = parseModelText(text);
  if (!parsed) return nullptr;
  std::shared_ptr<Model> model(std::move(parsed).value());
  Rewriter rw(*model);
  int i = 0;
  for (Node* node : model->graph().nodes()) {
    rw.renameNode(node, std::string(i < 4 ? "/a/" : "/b/") + node->opType() + "_" + std::to_string(i));
    ++i;
  }
  return model;
}

LevelView collapsedTop(const Graph& graph, const ScopeTree& scopes) {
  LevelRequest request;
  request.graph = &graph;
  request.collapseThreshold = 1;  // open collapsed to the groups whatever the size
  return buildLevel(request, scopes).value();
}

TEST(RepeatedGroups, SameStructureUnderOtherNamesIsAlike) {
  auto model = twoBlocks(-1);
  ASSERT_TRUE(model);
  ScopeTree scopes = ScopeTree::build(model->graph());
  ASSERT_TRUE(scopes.find("/a") && scopes.find("/b"));
  EXPECT_EQ(structureHash(*scopes.find("/a")), structureHash(*scopes.find("/b")));
  LevelView top = collapsedTop(model->graph(), scopes);
  const Item& a = top.items[top.find("g:/a")];
  EXPECT_EQ(a.repeats, 2u);
  EXPECT_EQ(itemDetailLines(a), (std::vector<std::string>{"4 nodes", "×2 alike"}));
}

TEST(RepeatedGroups, AnAttributeTellsThemApart) {
  auto model = twoBlocks(1);
  ASSERT_TRUE(model);
  ScopeTree scopes = ScopeTree::build(model->graph());
  EXPECT_NE(structureHash(*scopes.find("/a")), structureHash(*scopes.find("/b")));
  LevelView top = collapsedTop(model->graph(), scopes);
  EXPECT_EQ(top.items[top.find("g:/a")].repeats, 1u);
  EXPECT_EQ(itemDetailLines(top.items[top.find("g:/a")]), (std::vector<std::string>{"4 nodes"}));
}

TEST(RepeatedGroups, WiringTellsThemApart) {
  auto model = twoBlocks(-1);
  ASSERT_TRUE(model);
  // b's residual Add takes its own MatMul's output instead of the Softmax's: same ops, other wiring.
  Rewriter rw(*model);
  Node* addB = nullptr;
  Node* matmulB = nullptr;
  for (Node* node : model->graph().nodes()) {
    if (node->name().starts_with("/b/Add")) addB = node;
    if (node->name().starts_with("/b/MatMul")) matmulB = node;
  }
  ASSERT_TRUE(addB && matmulB);
  rw.setInput(addB, 0, matmulB->output(0));
  ScopeTree scopes = ScopeTree::build(model->graph());
  EXPECT_NE(structureHash(*scopes.find("/a")), structureHash(*scopes.find("/b")));
}

// The shared transformers: their four layers are one structure, the embeddings are not marked.
TEST(RepeatedGroups, TransformerLayersOfTheSharedModels) {
  ONYX_REQUIRE_SHARED(models, "models");
  for (const auto& [name, prefix] : {std::pair{"bert_small", "/layers."}, std::pair{"gpt2_small", "/blocks."}}) {
    auto model = loadModel(models / name / "model.onnx");
    ASSERT_TRUE(model.ok()) << model.error().toString();
    const Graph& graph = (*model)->graph();
    ScopeTree scopes = ScopeTree::build(graph);
    LevelRequest request;
    request.graph = &graph;  // the default threshold: 455 and 409 nodes open collapsed
    LevelView top = buildLevel(request, scopes).value();
    size_t layers = 0;
    for (const Item& item : top.items) {
      if (item.kind != ItemKind::Group) continue;
      if (item.scopePath.starts_with(prefix)) {
        ++layers;
        EXPECT_EQ(item.repeats, 4u) << name << " " << item.scopePath;
        EXPECT_EQ(itemDetailLines(item).back(), "×4 alike") << name;
      } else {
        EXPECT_EQ(item.repeats, 1u) << name << " " << item.scopePath;
      }
    }
    EXPECT_EQ(layers, 4u) << name;
  }
}

}  // namespace
}  // namespace onyx::layout
