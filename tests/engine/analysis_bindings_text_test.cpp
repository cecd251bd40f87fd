// parseBindingsText: what the unknown-dim panel's field accepts.
#include <gtest/gtest.h>

#include "analysis/bindings_text.h"
#include "analysis/model_graphs.h"
#include "onnx/onnx_io.h"

namespace onyx {
namespace {

TEST(BindingsText, ParsesSpacedEntries) {
  auto bindings = parseBindingsText(" batch=1, seq = 128;width=0 ");
  ASSERT_TRUE(bindings.ok()) << bindings.error().toString();
  EXPECT_EQ(*bindings, (SymBindings{{"batch", 1}, {"seq", 128}, {"width", 0}}));
  EXPECT_EQ(bindingsText(*bindings), "batch=1, seq=128, width=0");
}

TEST(BindingsText, EmptyTextIsNoBindings) {
  auto bindings = parseBindingsText("  ");
  ASSERT_TRUE(bindings.ok());
  EXPECT_TRUE(bindings->empty());
}

TEST(BindingsText, BadEntriesNameThemselves) {
  for (const char* text : {"batch", "batch=", "=3", "batch=-1", "batch=1x", "a=1, b"}) {
    auto bindings = parseBindingsText(text);
    ASSERT_FALSE(bindings.ok()) << text;
    EXPECT_NE(bindings.error().message.find("NAME=SIZE"), std::string::npos) << bindings.error().message;
  }
  EXPECT_EQ(parseBindingsText("a=1, b").error().message,
            "expected NAME=SIZE with a size >= 0 (as in `batch=1, seq=128`), got 'b'");
}

TEST(ModelGraphs, FindsNodesInBodiesAndFunctions) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
agraph (float[N] x, bool c) => (float[N] y) {
  t = local.Square(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(t) }>
}
<domain: "local", opset_import: ["" : 17]>
Square (a) => (b) { b = Mul(a, a) })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto graphs = allGraphs(**model);
  ASSERT_EQ(graphs.size(), 4u);  // main, then, else, Square's body
  for (const Graph* graph : graphs) {
    for (const Node* node : graph->nodes()) {
      EXPECT_EQ(findNodeInModel(**model, node->id()), node) << node->describe();
    }
  }
  EXPECT_EQ(graphs[3]->nodes().begin().operator*()->opType(), "Mul");
  EXPECT_EQ(findNodeInModel(**model, kNoNode), nullptr);
  EXPECT_EQ(findNodeInModel(**model, 9999), nullptr);
}

TEST(OnnxText, PrintsOneBody) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[N] x, bool c) => (float[N] y) {
  t = Relu(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(t) }>
})");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Node* branch = nullptr;
  for (const Node* node : (*model)->graph().nodes())
    if (node->opType() == "If") branch = node;
  ASSERT_NE(branch, nullptr);
  EXPECT_EQ(printGraphText(*branch->attribute("then_branch")->getGraph()),
            "g1 () => (float[N] z) {\nz = Add(t, x)\n}\n");
}

}  // namespace
}  // namespace onyx
